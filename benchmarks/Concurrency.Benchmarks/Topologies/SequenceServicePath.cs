
namespace Concurrency.Benchmarks.Topologies;

/// <summary>The seed's four identity servers (its throughput appendix), the actor on each of our mailboxes.</summary>
public enum SequenceServicePath
{
    /// <summary>One lock over the whole service.</summary>
    Simple,

    /// <summary>A lock on the counter only.</summary>
    Sequence,

    /// <summary>An actor's Ask per request, on our batch-drain mailbox.</summary>
    ActorBatchDrain,

    /// <summary>An actor's Ask per request, on the seed's bounded-channel mailbox (1024 slots).</summary>
    ActorBoundedChannel,

    /// <summary>The actor's event handler behind an async mutex, run by the caller.</summary>
    Locker,
}
