using System.Diagnostics;
using System.Runtime.ExceptionServices;

namespace Concurrency.Messaging.Logs;

/// <summary>
/// The append-only file log (format in <see cref="LogRecord"/>, policies in <see cref="FileFlushPolicy"/>). Appends fill a
/// buffer under <see cref="_appendLock"/> and write it at the file's end with positional writes; Get reads a record that
/// the operating system has with a positional read and no lock (bytes handed to the OS never change in an append-only
/// file), and takes the lock only for a record still in the buffer. Fsyncs run under <see cref="_syncLock"/>, outside the
/// append lock, so appends go on while one thread forces what was written before (group commit).
/// </summary>
/// <remarks>
/// <para>
/// An entry is published (counted in <see cref="Count"/>) when its policy's promise holds: under Buffered once it is in the
/// buffer, under WriteThrough once written, under Fsync once an fsync after its write returned. Until then it is only staged.
/// </para>
/// <para>
/// A failed write, cut or fsync faults the log for good: nothing is retried (a retried fsync can succeed after the kernel
/// dropped the pages it failed to write, and report lost appends durable). The log withdraws what its policy had not yet made
/// good (the failed entries, and under Buffered what the buffer held), cuts the file back to the end of what it keeps, and
/// fails every later append and flush with the original error as the inner exception. Count and Get serve what it keeps.
/// </para>
/// </remarks>
internal sealed class FileLog : IFileAppendLog
{
    private readonly string _path;
    private readonly ILogStorage _storage;
    private readonly FileFlushPolicy _policy;

    // Serializes appends, buffer writes, faults and Close. Taken before _syncLock when both are held.
    private readonly Lock _appendLock = new();

    // One fsync at a time; guards _synced's advance, and under Fsync the publishing of entries.
    private readonly Lock _syncLock = new();

    // Where each entry lies; staged under _appendLock, published per policy (see remarks), read without a lock.
    private readonly ChunkedList<RecordLocation> _records = new();

    // Records not yet handed to the OS, from file offset _written on. Guarded by _appendLock.
    private readonly byte[] _buffer;

    // Bytes used in _buffer. Guarded by _appendLock.
    private int _buffered;

    // File offset up to which records are handed to the OS. Written under _appendLock (Volatile); read by Get without it.
    private long _written;

    // Entries wholly handed to the OS, counted at every write, in the middle of a batch too. Guarded by _appendLock.
    private long _writtenCount;

    // Entries wholly handed to the OS whose append or batch is complete: what an fsync may make durable and publish, so
    // that a concurrent group commit never publishes part of a batch. Written under _appendLock (Volatile) at the end of
    // an append, a batch or a flush's write; read by SyncTo without it.
    private long _syncable;

    // Entries covered by the last fsync. Written under _syncLock (Volatile); read without it to skip a sync.
    private long _synced;

    // The first write, cut or fsync error; set once (Interlocked), read anywhere (Volatile).
    private Exception? _fault;

    // Whether the fault's cut back is done. Guarded by _appendLock and _syncLock together.
    private bool _cutBack;

    // Set once by Close under _appendLock; read without it (Volatile).
    private bool _closed;

    private FileLog(string path, ILogStorage storage, FileLogOptions options, long end, List<RecordLocation> records, FileLogRepair? tailCut)
    {
        _path = path;
        TailCut = tailCut;
        _storage = storage;
        _policy = options.FlushPolicy;
        _buffer = new byte[options.BufferSize];
        _written = end;
        foreach (var record in records)
        {
            _records.Add(record);
        }

        _writtenCount = records.Count;
        _syncable = records.Count;
        _synced = records.Count;
    }

    public FileLogRepair? TailCut { get; }

    public long Count
    {
        get
        {
            ThrowIfClosed();
            return _records.Count;
        }
    }

    /// <summary>
    /// Opens the file (creating it with a header when it is empty), reads its records back and cuts a bad tail (a bad record
    /// with no valid record after it) after copying it to a side file; <see cref="TailCut"/> reports it. A bad record with valid records after it is corruption: nothing is cut, and open throws.
    /// </summary>
    /// <param name="path">The file.</param>
    /// <param name="options">Checked options.</param>
    /// <param name="openStorage">Opens the file; <see langword="null"/> for the real one (a seam for tests).</param>
    public static FileLog Open(string path, FileLogOptions options, Func<string, ILogStorage>? openStorage = null)
    {
        var storage = openStorage is null ? FileLogStorage.Open(path) : openStorage(path);
        try
        {
            PrepareHeader(path, storage, create: true);
            var length = storage.Length;
            var records = new List<RecordLocation>();
            var scan = LogFileScan.Scan(storage, length, LogRecord.FileHeaderSize, records);
            FileLogRepair? tailCut = null;
            if (scan.ValidEnd < length)
            {
                if (scan.RecordsAfter > 0)
                {
                    throw new LogCorruptedException(path, scan.ValidEnd, records.Count, scan.RecordsAfter);
                }

                // A bad tail, nothing valid after it: a crash's unfinished write, or a last record damaged since its append
                // returned (under Fsync, an acknowledged entry), which the bytes cannot tell apart. Cut, so the next append
                // does not land behind it, but only once a side file keeps it, and reported, so no entry goes unseen.
                var cutFile = FileLogRepair.CopyTail(storage, path, scan.ValidEnd, length);
                storage.SetLength(scan.ValidEnd);
                storage.Flush();
                tailCut = new FileLogRepair(records.Count, length - scan.ValidEnd, 0, cutFile);
            }

            return new FileLog(path, storage, options, scan.ValidEnd, records, tailCut);
        }
        catch
        {
            storage.Dispose();
            throw;
        }
    }

    /// <summary>
    /// Checks the file's header, or writes one into an empty file (or one that holds only the start of a header, as a crash
    /// at creation leaves) when <paramref name="create"/>, and forces it and its folder entry. Refuses everything else
    /// without changing it.
    /// </summary>
    /// <exception cref="InvalidDataException">The file is not a log of this format; the message says what it is.</exception>
    internal static void PrepareHeader(string path, ILogStorage storage, bool create)
    {
        var length = storage.Length;
        Span<byte> header = stackalloc byte[LogRecord.FileHeaderSize];
        var read = 0;
        while (read < header.Length && storage.Read(header[read..], read) is var got and > 0)
        {
            read += got;
        }

        if (create && length < LogRecord.FileHeaderSize && LogRecord.IsFileHeaderPrefix(header[..read]))
        {
            LogRecord.WriteFileHeader(header);
            storage.Write(header, 0);
            storage.SetLength(LogRecord.FileHeaderSize);
            storage.Flush();

            // The file is new (or its creation was cut short): without its folder entry forced, a power loss can take the
            // file, and every entry fsynced into it, with it.
            storage.FlushFolder();
            return;
        }

        uint version = 0;
        var check = read == header.Length ? LogRecord.CheckFileHeader(header, out version) : LogRecord.FileHeaderCheck.NotALog;
        if (check == LogRecord.FileHeaderCheck.Valid)
        {
            return;
        }

        if (check == LogRecord.FileHeaderCheck.NotALog && LogFileScan.StartsWithLegacyRecord(storage, length))
        {
            throw new InvalidDataException(
                $"The log file '{path}' was written by an earlier version of the file log (format 0, without a header). Convert it once with AppendLog.UpgradeFile, which keeps the original beside it; nothing was changed.");
        }

        throw new InvalidDataException(check switch
        {
            LogRecord.FileHeaderCheck.Corrupt => $"The header of the log file '{path}' fails its checksum; nothing was changed. AppendLog.RepairFile rebuilds it when the records behind it check out, keeping the old one in a side file.",
            LogRecord.FileHeaderCheck.OtherVersion => $"The log file '{path}' is in format {version}; this version of the library reads format {LogRecord.FormatVersion}. Nothing was changed.",
            _ => $"'{path}' is not a file log: it does not start with the log's header. Nothing was changed.",
        });
    }

    public long Append(ReadOnlySpan<byte> entry)
    {
        long index;
        lock (_appendLock)
        {
            ThrowIfUnusable();
            try
            {
                index = StageLocked(entry);
                CommitLocked();
            }
            catch (Exception error)
            {
                FaultLocked(error);
                throw;
            }
        }

        SyncByPolicy(index + 1);
        return index;
    }

    public long AppendBatch(IReadOnlyList<ReadOnlyMemory<byte>> entries)
    {
        ArgumentNullException.ThrowIfNull(entries);
        var count = entries.Count;
        long first;
        lock (_appendLock)
        {
            ThrowIfUnusable();
            first = _records.StagedCount;
            try
            {
                for (var i = 0; i < count; i++)
                {
                    StageLocked(entries[i].Span);
                }

                CommitLocked();
            }
            catch (Exception error)
            {
                FaultLocked(error);
                throw;
            }
        }

        SyncByPolicy(first + count);
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
            _storage.ReadExactly(entry, record.PayloadOffset, _path);
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
        _storage.ReadExactly(entry, record.PayloadOffset, _path);
        return entry;
    }

    public void Flush()
    {
        long count;
        lock (_appendLock)
        {
            ThrowIfUnusable();
            try
            {
                WriteBufferLocked();
            }
            catch (Exception error)
            {
                FaultLocked(error);
                throw;
            }

            count = _writtenCount;
            Volatile.Write(ref _syncable, count);
        }

        SyncTo(count);
    }

    public void Close()
    {
        lock (_appendLock)
        {
            if (_closed)
            {
                return;
            }

            Exception? failed = null;
            try
            {
                failed = CloseHealthyLocked();
                if (Volatile.Read(ref _fault) is { } fault)
                {
                    FaultLocked(fault); // withdraw and cut back while the file is still open
                }
            }
            finally
            {
                Volatile.Write(ref _closed, true);
                _storage.Dispose();
            }

            if (failed is not null)
            {
                ExceptionDispatchInfo.Throw(failed);
            }
        }
    }

    public void Dispose() => Close();

    /// <summary>For tests: the entries an fsync may now make durable (see <see cref="_syncable"/>).</summary>
    internal long SyncableCount => Volatile.Read(ref _syncable);

    /// <summary>
    /// For tests: runs under the append lock as an entry is staged, before its bytes are taken: where a caller that changes
    /// its buffer during the append meets it. Set before the log is shared.
    /// </summary>
    internal Action? OnStaging { get; set; }

    // Hands the buffer to the OS and, under Fsync, forces what is not yet synced, unless the log is faulted, also by an
    // fsync that failed on another thread while this one waited for the sync lock (a failed fsync is never retried).
    // Returns the error that faulted the log here, if one did.
    private Exception? CloseHealthyLocked()
    {
        try
        {
            if (Volatile.Read(ref _fault) is not null)
            {
                return null;
            }

            WriteBufferLocked();
            Volatile.Write(ref _syncable, _writtenCount);
            lock (_syncLock)
            {
                if (_policy == FileFlushPolicy.Fsync && Volatile.Read(ref _fault) is null && _synced < _syncable)
                {
                    _storage.Flush();
                    _records.Publish(_syncable);
                    Volatile.Write(ref _synced, _syncable);
                }
            }

            return null;
        }
        catch (Exception error)
        {
            Interlocked.CompareExchange(ref _fault, error, null);
            return error;
        }
    }

    // Puts a record in the buffer (writing the buffer out first when it has no room) or, larger than the buffer, straight
    // into the file; stages its location and returns its index. The checksum is taken from the log's copy of the bytes, never
    // from the caller's memory, which the caller can change during the append: what is written then still checks out.
    private long StageLocked(ReadOnlySpan<byte> entry)
    {
        OnStaging?.Invoke();
        var recordSize = LogRecord.HeaderSize + entry.Length;
        if (recordSize > _buffer.Length - _buffered)
        {
            WriteBufferLocked();
        }

        var offset = _written + _buffered;
        if (recordSize > _buffer.Length)
        {
            WriteLargeLocked(entry);
            var large = _records.Stage(new RecordLocation(offset, entry.Length));
            _writtenCount = large + 1;
            return large;
        }

        var payload = _buffer.AsSpan(_buffered + LogRecord.HeaderSize, entry.Length);
        entry.CopyTo(payload);
        LogRecord.WriteHeader(_buffer.AsSpan(_buffered), entry.Length, LogRecord.Checksum(payload));
        _buffered += recordSize;
        return _records.Stage(new RecordLocation(offset, entry.Length));
    }

    // After staging, under the append lock: Buffered publishes what is buffered; WriteThrough writes it, then publishes;
    // Fsync writes it and leaves the publishing to the fsync that covers it.
    private void CommitLocked()
    {
        if (_policy != FileFlushPolicy.Buffered)
        {
            WriteBufferLocked();
        }

        Volatile.Write(ref _syncable, _writtenCount);
        if (_policy != FileFlushPolicy.Fsync)
        {
            _records.Publish(_records.StagedCount);
        }
    }

    // A record larger than the buffer goes to the file on its own, its bytes a buffer at a time through the (empty) buffer,
    // each piece checksummed from the copy that is written; the header, which needs the whole checksum, goes last. A crash
    // before it leaves a record with no marker at its start: a bad tail, which open keeps and cuts.
    private void WriteLargeLocked(ReadOnlySpan<byte> entry)
    {
        Debug.Assert(_buffered == 0, "The buffer was written out before a record that does not fit it.");
        var payloadOffset = _written + LogRecord.HeaderSize;
        var crc = LogRecord.ChecksumStart(entry.Length);
        for (var done = 0; done < entry.Length;)
        {
            var piece = _buffer.AsSpan(0, Math.Min(_buffer.Length, entry.Length - done));
            entry.Slice(done, piece.Length).CopyTo(piece);
            crc = LogRecord.ChecksumUpdate(crc, piece);
            _storage.Write(piece, payloadOffset + done);
            done += piece.Length;
        }

        Span<byte> header = stackalloc byte[LogRecord.HeaderSize];
        LogRecord.WriteHeader(header, entry.Length, ~crc);
        _storage.Write(header, _written);
        Volatile.Write(ref _written, payloadOffset + entry.Length);
    }

    // Hands the buffer to the OS: every staged record is then written.
    private void WriteBufferLocked()
    {
        if (_buffered == 0)
        {
            return;
        }

        _storage.Write(_buffer.AsSpan(0, _buffered), _written);
        Volatile.Write(ref _written, _written + _buffered);
        _writtenCount = _records.StagedCount;
        _buffered = 0;
    }

    // After appends, outside the append lock: under Fsync, returns once an fsync covers the first count entries.
    private void SyncByPolicy(long count)
    {
        if (_policy == FileFlushPolicy.Fsync)
        {
            SyncTo(count);
        }
    }

    // Fsyncs unless an fsync since covered the first count entries: one thread's fsync serves every entry written before it
    // began. The syncable count is read before the fsync, so every entry it counts was written before the fsync began.
    private void SyncTo(long count)
    {
        if (Volatile.Read(ref _synced) >= count)
        {
            return;
        }

        Exception? failed;
        lock (_syncLock)
        {
            if (_synced >= count)
            {
                return;
            }

            ThrowIfUnusable();
            var target = Volatile.Read(ref _syncable);
            Debug.Assert(target >= count, "Entries are written before anyone waits for their fsync.");
            try
            {
                _storage.Flush();
                if (_policy == FileFlushPolicy.Fsync)
                {
                    _records.Publish(target);
                }

                Volatile.Write(ref _synced, target);
                return;
            }
            catch (Exception error)
            {
                // Faulted before the sync lock is let go, so that no later fsync is tried (see remarks).
                Interlocked.CompareExchange(ref _fault, error, null);
                failed = error;
            }
        }

        lock (_appendLock)
        {
            FaultLocked(failed);
        }

        ExceptionDispatchInfo.Throw(failed);
    }

    // Faults the log (the first error wins) and, once, withdraws what the policy had not made good and cuts the file back to
    // the end of what is kept, so that a failed entry is not found there on reopen either. A failed cut is not reported: the
    // first error is the one that matters. (Then a record left half-written is a torn tail that open cuts, but a whole
    // record whose fsync failed is found again on reopen.) Published entries never include part of a batch, so neither
    // does what is kept. After Close, which cuts back first, there is nothing left to do.
    private void FaultLocked(Exception error)
    {
        Debug.Assert(_appendLock.IsHeldByCurrentThread, "A fault is taken under the append lock.");
        Interlocked.CompareExchange(ref _fault, error, null);
        lock (_syncLock)
        {
            if (_cutBack || _closed)
            {
                return;
            }

            _cutBack = true;
            var keep = Math.Min(_records.Count, _writtenCount);
            _records.Publish(keep);
            _records.Unstage(keep);
            _buffered = 0;
            var end = keep == 0 ? LogRecord.FileHeaderSize : _records[keep - 1].End;
            try
            {
                if (_storage.Length > end)
                {
                    _storage.SetLength(end);
                    _storage.Flush();
                }
            }
            catch (Exception)
            {
                // See above: the original error is reported; open cuts a torn tail.
            }
        }
    }

    private void ThrowIfClosed() => ObjectDisposedException.ThrowIf(Volatile.Read(ref _closed), this);

    private void ThrowIfUnusable()
    {
        ThrowIfClosed();
        if (Volatile.Read(ref _fault) is { } fault)
        {
            throw new IOException(
                $"The file log '{_path}' failed and takes no more appends or flushes ({fault.Message}). It keeps the {_records.Count} entries its policy had made good; reopen it to go on.",
                fault);
        }
    }
}
