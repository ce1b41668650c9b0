namespace Concurrency.Messaging.Logs;

/// <summary>
/// One request queued on an <see cref="AsyncLog"/>: one entry, or a batch that must land at contiguous indexes, and the
/// completion that gets the (first) index once the inner log has it durable.
/// </summary>
internal sealed class PendingAppend
{
    private PendingAppend(ReadOnlyMemory<byte> entry, IReadOnlyList<ReadOnlyMemory<byte>>? batch)
    {
        Entry = entry;
        Batch = batch;
    }

    public ReadOnlyMemory<byte> Entry { get; }

    public IReadOnlyList<ReadOnlyMemory<byte>>? Batch { get; }

    public int EntryCount => Batch?.Count ?? 1;

    // Continuations run on the pool, so completing a batch never runs callers' code on the writer.
    public TaskCompletionSource<long> Completion { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

    // The caller's token, registered before the request is queued (so the writer, which takes it from the channel, sees it
    // set) and disposed by whichever completion comes first. Cancelling ends the caller's wait only: the writer still
    // appends the entry, and its TrySetResult then finds the completion settled.
    private CancellationTokenRegistration _cancellation;

    /// <summary>
    /// Lets <paramref name="cancellationToken"/> cancel the caller's wait. The caller awaits <see cref="Completion"/>
    /// itself (not a wrapper), so once the writer completes a request its caller's task is already settled.
    /// </summary>
    public PendingAppend WatchedBy(CancellationToken cancellationToken)
    {
        if (cancellationToken.CanBeCanceled)
        {
            _cancellation = cancellationToken.UnsafeRegister(
                static (state, token) => ((PendingAppend)state!).Completion.TrySetCanceled(token), this);
        }

        return this;
    }

    /// <summary>Completes the request with the index of its (first) entry; called by the writer only.</summary>
    public void Succeed(long first)
    {
        Completion.TrySetResult(first);
        _cancellation.Dispose();
    }

    /// <summary>Drops the token's registration of a request that was never queued.</summary>
    public void Release() => _cancellation.Dispose();

    /// <summary>Fails the request; called by the writer only.</summary>
    public void Fail(Exception error)
    {
        Completion.TrySetException(error);
        _cancellation.Dispose();
    }

    public static PendingAppend One(ReadOnlyMemory<byte> ownedCopy) => new(ownedCopy, null);

    public static PendingAppend Many(IReadOnlyList<ReadOnlyMemory<byte>> ownedCopies) => new(default, ownedCopies);

    /// <summary>Adds this request's entries, in order, to the batch the writer hands the inner log.</summary>
    public void AddTo(List<ReadOnlyMemory<byte>> entries)
    {
        if (Batch is null)
        {
            entries.Add(Entry);
        }
        else
        {
            entries.AddRange(Batch);
        }
    }
}
