namespace Concurrency.Messaging.Logs;

/// <summary>
/// The log kept in memory. The write side of the seed's reader-writer lock is <see cref="_appendLock"/>, held only to store
/// the entry's reference; the read side needs no lock at all, because an entry never changes once its index is published
/// (see <see cref="ChunkedList{T}"/>), so readers and writers never wait for each other.
/// </summary>
internal sealed class InMemoryLog : IAppendLog
{
    // Serializes appends and Close.
    private readonly Lock _appendLock = new();

    // Entries are copies no one else holds; added under _appendLock, read without it.
    private readonly ChunkedList<byte[]> _entries = new();

    // Set once by Close under _appendLock; read without it (Volatile) by Get and Count.
    private bool _closed;

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
        // Copied before the lock so that copies from several threads run in parallel.
        var copy = entry.ToArray();
        lock (_appendLock)
        {
            ThrowIfClosed();
            return _entries.Add(copy);
        }
    }

    public long AppendBatch(IReadOnlyList<ReadOnlyMemory<byte>> entries)
    {
        ArgumentNullException.ThrowIfNull(entries);
        var copies = new byte[entries.Count][];
        for (var i = 0; i < copies.Length; i++)
        {
            copies[i] = entries[i].ToArray();
        }

        lock (_appendLock)
        {
            ThrowIfClosed();
            var first = _entries.Count;
            foreach (var copy in copies)
            {
                _entries.Add(copy);
            }

            return first;
        }
    }

    public byte[] Get(long index)
    {
        ThrowIfClosed();
        LogIndex.ThrowIfOutOfRange(index, _entries.Count);
        return (byte[])_entries[index].Clone();
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

    private void ThrowIfClosed() => ObjectDisposedException.ThrowIf(Volatile.Read(ref _closed), this);
}
