using System.Diagnostics;

namespace Concurrency.Messaging.Logs;

/// <summary>
/// A list that only grows, for one writer at a time (the owner's append lock) and any number of lock-free readers.
/// Items live in fixed chunks that never move, so growing copies only the small chunk directory, never the items, and a
/// reader never sees an item half-moved. An item is stored before the count that covers it is published (a release
/// write), and readers read the count first (an acquire read), so an index below <see cref="Count"/> is always complete.
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

    public long Count => Volatile.Read(ref _count);

    /// <summary>Adds <paramref name="item"/> and returns its index. The caller holds the owner's append lock.</summary>
    public long Add(T item)
    {
        var index = _count;
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
        Volatile.Write(ref _count, index + 1);
        return index;
    }

    /// <summary>Gets the item at <paramref name="index"/>, which the caller has checked is below <see cref="Count"/>.</summary>
    public T this[long index]
    {
        get
        {
            Debug.Assert(index >= 0 && index < Count, "The caller checks the index against a count it read first.");
            return Volatile.Read(ref _chunks)[index >> ChunkShift][index & ChunkMask];
        }
    }
}
