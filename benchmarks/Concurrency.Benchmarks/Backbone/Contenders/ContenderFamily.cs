namespace Concurrency.Benchmarks.Backbone.Contenders;

/// <summary>Who a contender belongs to: for colours, for reading a row at a glance, and for the "which one" table's winners.</summary>
public enum ContenderFamily
{
    /// <summary>A yardstick (DirectCall, RawRing), not a usable path.</summary>
    Ceiling,

    /// <summary>Rx.NET's own operators: a peer.</summary>
    Rx,

    /// <summary>TPL Dataflow: a peer.</summary>
    Dataflow,

    /// <summary>Akka.NET and Proto.Actor: peers in the actor scenarios.</summary>
    ActorSystem,

    /// <summary>This library.</summary>
    Ours,

    /// <summary>Another library or service a user could pick instead (FasterLog, plain gRPC, Proto.Remote): a peer.</summary>
    Peer,

    /// <summary>What a user writes by hand with the base library (a list under a lock, the .NET thread pool): a baseline.</summary>
    Baseline,

    /// <summary>A contender a user of the suite added in a file of their own (see the registry's <c>IContenderSource</c>).</summary>
    User,
}
