using System.Diagnostics;

namespace Concurrency.Messaging.Logs;

/// <summary>
/// A list that only grows, for one writer at a time (the owner's append lock) and any number of lock-free readers.
/// Items live in fixed chunks that never move, so growing copies only the small chunk directory, never the items, and a
/// reader never sees an item half-moved. An item is stored before the count that covers it is published (a release
/// write), and readers read the count first (an acquire read), so an index below <see cref="Count"/> is always complete.
/// A writer may stage items ahead of the count (<see cref="Stage"/>) and publish them later, or lower the count again to
/// withdraw what it published but then lost (<see cref="Publish"/>); a reader that read the higher count first may still
/// read such an item, whose slot is never cleared.
/// </summary>
internal sealed class ChunkedList<T>
{
    private const int ChunkShift = 12;
    private const int ChunkSize = 1 << ChunkShift;
    private const int ChunkMask = ChunkSize - 1;

    // The chunk directory. Replaced (grown) by the writer under the owner's append lock; read by readers with Volatile.
    private T[][] _chunks = new T[16][];

    // Published items. Written by the writer under the owner's append lock, with Volatile after the item is stored.
    private long _count;

    // Items stored, published or not: at least _count. Writer only, under the owner's append lock.
    private long _staged;

    public long Count => Volatile.Read(ref _count);

    /// <summary>Gets the items stored, published or not. The caller holds the owner's append lock.</summary>
    public long StagedCount => _staged;

    /// <summary>Adds <paramref name="item"/>, publishes it and returns its index. The caller holds the owner's append lock.</summary>
    public long Add(T item)
    {
        var index = Stage(item);
        Publish(index + 1);
        return index;
    }

    /// <summary>
    /// Sets the published count to <paramref name="count"/>, at most <see cref="StagedCount"/>: higher publishes staged items,
    /// lower withdraws published ones and drops the staged ones above it. The caller holds the owner's append lock, or is the
    /// one writer that publishes under a lock of its own while appends only stage.
    /// </summary>
    public void Publish(long count)
    {
        Debug.Assert(count >= 0 && count <= _staged, "Only staged items are published.");
        Volatile.Write(ref _count, count);
    }

    /// <summary>Drops the staged items from <paramref name="count"/> on. The caller holds the owner's append lock.</summary>
    public void Unstage(long count)
    {
        Debug.Assert(count >= Count && count <= _staged, "Only unpublished items are dropped.");
        _staged = count;
    }

    /// <summary>Stores <paramref name="item"/> at the next index without publishing it. The caller holds the owner's append lock.</summary>
    public long Stage(T item)
    {
        var index = _staged;
        var chunk = (int)(index >> ChunkShift);
        var chunks = _chunks;
        if (chunk == chunks.Length)
        {
            var grown = new T[chunks.Length * 2][];
            Array.Copy(chunks, grown, chunks.Length);
            Volatile.Write(ref _chunks, grown);
            chunks = grown;
        }

        var items = chunks[chunk] ??= new T[ChunkSize];
        items[index & ChunkMask] = item;
        _staged = index + 1;
        return index;
    }

    /// <summary>
    /// Gets the item at <paramref name="index"/>, which the caller has checked is below a <see cref="Count"/> it read first,
    /// or, as the writer, below <see cref="StagedCount"/>.
    /// </summary>
    public T this[long index]
    {
        get
        {
            Debug.Assert(index >= 0, "The caller checks the index against a count it read first.");
            return Volatile.Read(ref _chunks)[index >> ChunkShift][index & ChunkMask];
        }
    }
}
