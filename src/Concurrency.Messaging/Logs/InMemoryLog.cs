namespace Concurrency.Messaging.Logs;

/// <summary>
/// The log kept in memory. Entries are copied into large segments (1 MiB, on the large object heap) rather than arrays of
/// their own, so an append allocates nothing and the garbage collector has a few big objects to keep alive, not one per
/// entry. The write side of the seed's reader-writer lock is <see cref="_appendLock"/>, held for the copy and the store of
/// the entry's place; the read side needs no lock at all, because an entry never changes once its index is published
/// (see <see cref="ChunkedList{T}"/>), so readers and writers never wait for each other.
/// </summary>
internal sealed class InMemoryLog : IAppendLog
{
    private const int SegmentSize = 1 << 20;

    // An entry larger than this gets an array of its own, so that a segment is never mostly wasted.
    private const int LargeEntry = SegmentSize / 16;

    // Serializes appends and Close.
    private readonly Lock _appendLock = new();

    // Where each entry lies; added under _appendLock, read without it.
    private readonly ChunkedList<EntrySlice> _entries = new();

    // Every segment, by number; added under _appendLock before any entry that lies in it, read without it.
    private readonly ChunkedList<byte[]> _segments = new();

    // The segment appends copy into; replaced when full. Guarded by _appendLock.
    private byte[] _segment;

    // The number of _segment in _segments. Guarded by _appendLock.
    private int _segmentNumber;

    // Bytes used in _segment. Guarded by _appendLock.
    private int _segmentUsed;

    // Set once by Close under _appendLock; read without it (Volatile) by Get and Count.
    private bool _closed;

    public InMemoryLog()
    {
        _segment = new byte[SegmentSize];
        _segmentNumber = (int)_segments.Add(_segment);
    }

    public long Count
    {
        get
        {
            ThrowIfClosed();
            return _entries.Count;
        }
    }

    public long Append(ReadOnlySpan<byte> entry)
    {
        lock (_appendLock)
        {
            ThrowIfClosed();
            return AddLocked(entry);
        }
    }

    public long AppendBatch(IReadOnlyList<ReadOnlyMemory<byte>> entries)
    {
        ArgumentNullException.ThrowIfNull(entries);
        lock (_appendLock)
        {
            ThrowIfClosed();
            var first = _entries.Count;
            for (var i = 0; i < entries.Count; i++)
            {
                AddLocked(entries[i].Span);
            }

            return first;
        }
    }

    public byte[] Get(long index)
    {
        ThrowIfClosed();
        LogIndex.ThrowIfOutOfRange(index, _entries.Count);
        var slice = _entries[index];
        return _segments[slice.Segment].AsSpan(slice.Offset, slice.Length).ToArray();
    }

    public void Flush() => ThrowIfClosed();

    public void Close()
    {
        lock (_appendLock)
        {
            Volatile.Write(ref _closed, true);
        }
    }

    public void Dispose() => Close();

    private long AddLocked(ReadOnlySpan<byte> entry)
    {
        if (entry.Length > LargeEntry)
        {
            return _entries.Add(new EntrySlice((int)_segments.Add(entry.ToArray()), 0, entry.Length));
        }

        if (entry.Length > SegmentSize - _segmentUsed)
        {
            // Readers keep the old segment alive through their slices; it is never written again.
            _segment = new byte[SegmentSize];
            _segmentNumber = (int)_segments.Add(_segment);
            _segmentUsed = 0;
        }

        entry.CopyTo(_segment.AsSpan(_segmentUsed));
        var slice = new EntrySlice(_segmentNumber, _segmentUsed, entry.Length);
        _segmentUsed += entry.Length;
        return _entries.Add(slice);
    }

    private void ThrowIfClosed() => ObjectDisposedException.ThrowIf(Volatile.Read(ref _closed), this);
}
