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
