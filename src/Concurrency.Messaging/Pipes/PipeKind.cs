namespace Concurrency.Messaging.Pipes;

/// <summary>The implementations behind <see cref="IPipe{T}"/>.</summary>
public enum PipeKind
{
    /// <summary>An Rx <c>Subject&lt;T&gt;</c> observed on a scheduler chosen by <see cref="PipeOptions.Scheduler"/>: the baseline.</summary>
    ObserveOn,

    /// <summary>A <see cref="Queue{T}"/> guarded by a <see cref="ReaderWriterLockSlim"/>; the consumer takes one message per lock.</summary>
    ReaderWriterLockQueue,

    /// <summary>An array guarded by a lock; the consumer swaps it out whole and handles the batch outside the lock.</summary>
    BatchDrainQueue,

    /// <summary>A <c>System.Threading.Channels</c> channel, unbounded or bounded.</summary>
    Channel,

    /// <summary>Bounded lock-free rings, one per consumer, for one producer at a time.</summary>
    Ring,

    /// <summary>A <see cref="System.Collections.Concurrent.BlockingCollection{T}"/>.</summary>
    BlockingCollection,
}
