using System.Diagnostics;
using Microsoft.Win32.SafeHandles;

namespace Concurrency.Messaging.Logs;

/// <summary>
/// The append-only file log (format in <see cref="LogRecord"/>, policies in <see cref="FileFlushPolicy"/>). Appends fill a
/// buffer under <see cref="_appendLock"/> and write it at the file's end with positional writes; Get reads a record that
/// the operating system has with a positional read and no lock (bytes handed to the OS never change in an append-only
/// file), and takes the lock only for a record still in the buffer. Fsyncs run under <see cref="_syncLock"/>, outside the
/// append lock, so appends go on while one thread forces what was written before (group commit).
/// </summary>
internal sealed class FileLog : IAppendLog
{
    private readonly SafeFileHandle _file;
    private readonly FileFlushPolicy _policy;

    // Serializes appends, buffer writes and Close. Taken before _syncLock when both are held.
    private readonly Lock _appendLock = new();

    // One fsync at a time; guards _durable's advance.
    private readonly Lock _syncLock = new();

    // Where each entry lies; added under _appendLock, read without it.
    private readonly ChunkedList<RecordLocation> _records = new();

    // Records not yet handed to the OS, from file offset _written on. Guarded by _appendLock.
    private readonly byte[] _buffer;

    // Bytes used in _buffer. Guarded by _appendLock.
    private int _buffered;

    // File offset up to which records are handed to the OS. Written under _appendLock (Volatile); read by Get without it.
    private long _written;

    // File offset up to which records are fsynced. Written under _syncLock (Volatile); read without it to skip a sync.
    private long _durable;

    // Set once by Close under _appendLock; read without it (Volatile).
    private bool _closed;

    private FileLog(SafeFileHandle file, FileLogOptions options, long end)
    {
        _file = file;
        _policy = options.FlushPolicy;
        _buffer = new byte[options.BufferSize];
        _written = end;
        _durable = end;
    }

    public long Count
    {
        get
        {
            ThrowIfClosed();
            return _records.Count;
        }
    }

    /// <summary>Opens the file, reads its records back, truncates a torn tail and returns the log positioned after them.</summary>
    public static FileLog Open(string path, FileLogOptions options)
    {
        var file = File.OpenHandle(path, FileMode.OpenOrCreate, FileAccess.ReadWrite, FileShare.Read);
        try
        {
            var records = new List<RecordLocation>();
            var end = ReadRecords(file, records);
            if (end < RandomAccess.GetLength(file))
            {
                // A torn or corrupt tail: drop it for good, so the next append does not land behind garbage.
                RandomAccess.SetLength(file, end);
                RandomAccess.FlushToDisk(file);
            }

            var log = new FileLog(file, options, end);
            foreach (var record in records)
            {
                log._records.Add(record);
            }

            return log;
        }
        catch
        {
            file.Dispose();
            throw;
        }
    }

    public long Append(ReadOnlySpan<byte> entry)
    {
        // The checksum is computed before the lock so that several threads compute theirs in parallel.
        var checksum = LogRecord.Checksum(entry);
        long index;
        long end;
        lock (_appendLock)
        {
            ThrowIfClosed();
            index = AddLocked(entry, checksum);
            end = WriteOutLocked();
        }

        SyncByPolicy(end);
        return index;
    }

    public long AppendBatch(IReadOnlyList<ReadOnlyMemory<byte>> entries)
    {
        ArgumentNullException.ThrowIfNull(entries);
        var checksums = new uint[entries.Count];
        for (var i = 0; i < checksums.Length; i++)
        {
            checksums[i] = LogRecord.Checksum(entries[i].Span);
        }

        long first;
        long end;
        lock (_appendLock)
        {
            ThrowIfClosed();
            first = _records.Count;
            for (var i = 0; i < checksums.Length; i++)
            {
                AddLocked(entries[i].Span, checksums[i]);
            }

            end = WriteOutLocked();
        }

        SyncByPolicy(end);
        return first;
    }

    public byte[] Get(long index)
    {
        ThrowIfClosed();
        LogIndex.ThrowIfOutOfRange(index, _records.Count);
        var record = _records[index];
        var entry = new byte[record.Length];
        if (record.End <= Volatile.Read(ref _written))
        {
            ReadExactly(record.PayloadOffset, entry);
            return entry;
        }

        lock (_appendLock)
        {
            ThrowIfClosed();
            if (record.Offset >= _written)
            {
                _buffer.AsSpan((int)(record.PayloadOffset - _written), record.Length).CopyTo(entry);
                return entry;
            }
        }

        // Written out between the check and the lock.
        ReadExactly(record.PayloadOffset, entry);
        return entry;
    }

    public void Flush()
    {
        long end;
        lock (_appendLock)
        {
            ThrowIfClosed();
            WriteBufferLocked();
            end = _written;
        }

        SyncTo(end);
    }

    public void Close()
    {
        lock (_appendLock)
        {
            if (_closed)
            {
                return;
            }

            try
            {
                WriteBufferLocked();
                if (_policy == FileFlushPolicy.Fsync)
                {
                    lock (_syncLock)
                    {
                        RandomAccess.FlushToDisk(_file);
                    }
                }
            }
            finally
            {
                Volatile.Write(ref _closed, true);
                _file.Dispose();
            }
        }
    }

    public void Dispose() => Close();

    private static long ReadRecords(SafeFileHandle file, List<RecordLocation> records)
    {
        var reader = new LogFileReader(file, FileLogOptions.DefaultBufferSize);
        Span<byte> header = stackalloc byte[LogRecord.HeaderSize];
        var entry = Array.Empty<byte>();
        var length = RandomAccess.GetLength(file);
        long offset = 0;
        while (reader.TryRead(header))
        {
            var (entryLength, checksum) = LogRecord.ReadHeader(header);
            if (entryLength < 0 || offset + LogRecord.HeaderSize + entryLength > length)
            {
                break;
            }

            if (entry.Length < entryLength)
            {
                entry = new byte[Math.Max(entryLength, entry.Length * 2)];
            }

            var payload = entry.AsSpan(0, entryLength);
            if (!reader.TryRead(payload) || LogRecord.Checksum(payload) != checksum)
            {
                break;
            }

            records.Add(new RecordLocation(offset, entryLength));
            offset += LogRecord.HeaderSize + entryLength;
        }

        return offset;
    }

    private long AddLocked(ReadOnlySpan<byte> entry, uint checksum)
    {
        var recordSize = LogRecord.HeaderSize + entry.Length;
        if (recordSize > _buffer.Length - _buffered)
        {
            WriteBufferLocked();
        }

        var offset = _written + _buffered;
        if (recordSize <= _buffer.Length)
        {
            LogRecord.WriteHeader(_buffer.AsSpan(_buffered), entry.Length, checksum);
            entry.CopyTo(_buffer.AsSpan(_buffered + LogRecord.HeaderSize));
            _buffered += recordSize;
        }
        else
        {
            WriteLargeLocked(entry, checksum);
        }

        return _records.Add(new RecordLocation(offset, entry.Length));
    }

    // A record larger than the buffer goes straight to the file; the buffer is empty here.
    private void WriteLargeLocked(ReadOnlySpan<byte> entry, uint checksum)
    {
        Debug.Assert(_buffered == 0, "The buffer was written out before a record that does not fit it.");
        Span<byte> header = stackalloc byte[LogRecord.HeaderSize];
        LogRecord.WriteHeader(header, entry.Length, checksum);
        RandomAccess.Write(_file, header, _written);
        RandomAccess.Write(_file, entry, _written + LogRecord.HeaderSize);
        Volatile.Write(ref _written, _written + LogRecord.HeaderSize + entry.Length);
    }

    // Hands the buffer to the OS. A failed write leaves it buffered; the next attempt rewrites it at the same offset.
    private void WriteBufferLocked()
    {
        if (_buffered == 0)
        {
            return;
        }

        RandomAccess.Write(_file, _buffer.AsSpan(0, _buffered), _written);
        Volatile.Write(ref _written, _written + _buffered);
        _buffered = 0;
    }

    // After appends, under the append lock: hands the buffer to the OS unless the policy keeps it buffered; returns the
    // end of what the OS holds, for SyncByPolicy.
    private long WriteOutLocked()
    {
        if (_policy != FileFlushPolicy.Buffered)
        {
            WriteBufferLocked();
        }

        return _written;
    }

    // After appends, outside the append lock: fsyncs up to end when the policy says every append is durable.
    private void SyncByPolicy(long end)
    {
        if (_policy == FileFlushPolicy.Fsync)
        {
            SyncTo(end);
        }
    }

    // Fsyncs unless an fsync since covered offset end: one thread's fsync serves every append written before it began.
    private void SyncTo(long end)
    {
        if (Volatile.Read(ref _durable) >= end)
        {
            return;
        }

        lock (_syncLock)
        {
            if (_durable >= end)
            {
                return;
            }

            ThrowIfClosed();
            var target = Volatile.Read(ref _written);
            RandomAccess.FlushToDisk(_file);
            Volatile.Write(ref _durable, target);
        }
    }

    private void ReadExactly(long offset, Span<byte> destination)
    {
        while (!destination.IsEmpty)
        {
            var read = RandomAccess.Read(_file, destination, offset);
            if (read == 0)
            {
                throw new IOException("The log file ended before a record it holds.");
            }

            destination = destination[read..];
            offset += read;
        }
    }

    private void ThrowIfClosed() => ObjectDisposedException.ThrowIf(Volatile.Read(ref _closed), this);
}
