namespace Concurrency.Benchmarks.Reporting;

/// <summary>Who a contender belongs to, for colours and for reading a row at a glance.</summary>
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
}
