namespace Concurrency.Messaging.Pipes;

/// <summary>The implementations behind <see cref="IPipe{T}"/>.</summary>
public enum PipeKind
{
    /// <summary>An Rx <c>Subject&lt;T&gt;</c> observed on a scheduler chosen by <see cref="PipeOptions.Scheduler"/>: the baseline.</summary>
    ObserveOn,

    /// <summary>A <see cref="Queue{T}"/> guarded by a <see cref="ReaderWriterLockSlim"/>; the consumer takes one message per lock.</summary>
    ReaderWriterLockQueue,

    /// <summary>A <see cref="Queue{T}"/> guarded by a monitor; the consumer takes everything queued in one step.</summary>
    BatchDrainQueue,

    /// <summary>A <c>System.Threading.Channels</c> channel, unbounded or bounded.</summary>
    Channel,

    /// <summary>A bounded lock-free ring for exactly one producer per ring.</summary>
    Ring,

    /// <summary>A <see cref="System.Collections.Concurrent.BlockingCollection{T}"/>.</summary>
    BlockingCollection,
}
