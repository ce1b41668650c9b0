using Concurrency.Benchmarks.Actors;
using Concurrency.Benchmarks.Topologies;

namespace Concurrency.Benchmarks.Backbone.Reporting;

/// <summary>What a reader must know about a scenario before comparing its rows: how the contenders were made equal.</summary>
public static class ScenarioNotes
{
    private const string ActorFairness =
        "Every actor system plays the same game (`ActorContender`): the same actor logic, the same preallocated immutable "
        + "`Token` messages reused across runs, the same in-flight window, sends without a sender. Each system runs its own "
        + "default dispatcher on the .NET thread pool with its default throughput (ours 300, Akka.NET 30, Proto.Actor 300, "
        + "set through its default dispatcher) and its default unbounded mailbox (ours: the batch-drain mailbox; the "
        + "bounded-channel row is the seed's mailbox of capacity 1024). Akka.NET's logging and dead-letter logging are off. "
        + "Actors are created and handshaken (one verified run) before timing; a run ends when the last message is delivered "
        + "(counted at the receiving actor), not sent; each case builds its own system and shuts it down. Workstation GC, "
        + "non-concurrent, for every row.";

    public static string? For(string scenario) => scenario switch
    {
        nameof(ActorPingPongBenchmarks) => ActorFairness + " One pair per core; msg/s counts pings and pongs.",
        nameof(ActorRingBenchmarks) => ActorFairness + " msg/s counts hops; the tokens are injected at the starter's successor, so a run is exactly N × M hops.",
        nameof(SequenceServiceBenchmarks) => "The seed's Ipseity service, four ways, in process: each client (a thread-pool task) awaits one `NextAsync` after "
            + "another; msg/s counts requests. The actor rows ask through the mailbox with no timeout (a timeout adds a timer per request).",
        _ => null,
    };
}
