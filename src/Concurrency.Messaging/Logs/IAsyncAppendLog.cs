namespace Concurrency.Messaging.Logs;

/// <summary>
/// A log whose appends return at once: each is queued, a single writer applies the queue to the inner log in batches
/// (one flush step of the inner log's policy per batch: group commit), and the returned task completes when the entry is
/// as durable as that policy makes it. Created by <see cref="AppendLog.Async(IAppendLog)"/>.
/// </summary>
/// <remarks>
/// <see cref="IAppendLog.Append(ReadOnlySpan{byte})"/> on this log queues and blocks its calling thread until the entry is
/// durable; many threads doing that share one fsync per batch. Never call it from a pool thread, an actor's turn or a pipe's
/// handler, which it would hold for an fsync: use <see cref="AppendAsync"/> there (the library itself never calls it). <see cref="IAppendLog.Count"/> and <see cref="IAppendLog.Get(long)"/> see an entry once the
/// writer has applied it, which may be before it is durable. If the inner log throws, the appends of that batch and every
/// later one fail with that error (never dropped silently), and the log takes no more appends.
/// <see cref="IAsyncDisposable.DisposeAsync"/> and <see cref="IAppendLog.Close"/> apply everything queued, then close the inner log.
/// </remarks>
public interface IAsyncAppendLog : IAppendLog, IAsyncDisposable
{
    /// <summary>Queues a copy of <paramref name="entry"/> and returns a task for its index.</summary>
    /// <param name="entry">The bytes of the entry; copied before the method returns, so the caller may reuse its buffer.</param>
    /// <param name="cancellationToken">
    /// Cancels the wait only: an entry already queued is appended anyway. If it is cancelled on entry, nothing is queued.
    /// </param>
    /// <returns>The index of the entry, once the entry is durable per the inner log's policy.</returns>
    /// <exception cref="ObjectDisposedException">The log is closed.</exception>
    /// <exception cref="InvalidOperationException">The inner log failed earlier; its error is the inner exception.</exception>
    ValueTask<long> AppendAsync(ReadOnlyMemory<byte> entry, CancellationToken cancellationToken = default);
}
