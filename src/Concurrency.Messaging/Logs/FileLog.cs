using System.Diagnostics;
using System.Runtime.ExceptionServices;

namespace Concurrency.Messaging.Logs;

/// <summary>
/// The append-only file log (format in <see cref="LogRecord"/>, policies in <see cref="FileFlushPolicy"/>). Appends stage
/// records under <see cref="_appendLock"/> (<see cref="LogFileWriter"/>); Get reads a record the OS has with a positional
/// read and no lock (bytes handed to the OS never change in an append-only file), and takes the lock only for one still in
/// the buffer. Fsyncs run under <see cref="_syncLock"/>, outside the append lock, so appends go on meanwhile (group commit).
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
        foreach (var record in records)
        {
            _records.Add(record);
        }

        Writer = new LogFileWriter(storage, _records, options.BufferSize, end);
        (_syncable, _synced) = (records.Count, records.Count);
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
    /// Opens the file (creating it with a header when it is empty), reads its records back and cuts a bad tail after copying
    /// it to a side file (<see cref="FileLogRepair.ReadBackAtOpen"/>); <see cref="TailCut"/> reports it.
    /// </summary>
    /// <param name="path">The file.</param>
    /// <param name="options">Checked options.</param>
    /// <param name="openStorage">Opens the file; <see langword="null"/> for the real one (a seam for tests).</param>
    public static FileLog Open(string path, FileLogOptions options, Func<string, ILogStorage>? openStorage = null)
    {
        var storage = openStorage is null ? FileLogStorage.Open(path) : openStorage(path);
        try
        {
            LogFileHeader.Prepare(path, storage, create: true);
            var (records, end, tailCut) = FileLogRepair.ReadBackAtOpen(storage, path);
            return new FileLog(path, storage, options, end, records, tailCut);
        }
        catch
        {
            storage.Dispose();
            throw;
        }
    }

    public long Append(ReadOnlySpan<byte> entry)
    {
        long index;
        lock (_appendLock)
        {
            ThrowIfUnusable();
            try
            {
                index = Writer.Stage(entry);
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
                    Writer.Stage(entries[i].Span);
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
        if (record.End <= Writer.Written)
        {
            _storage.ReadExactly(entry, record.PayloadOffset, _path);
            return entry;
        }

        lock (_appendLock)
        {
            ThrowIfClosed();
            if (Writer.TryCopyBuffered(record, entry))
            {
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
                Writer.WriteBuffer();
            }
            catch (Exception error)
            {
                FaultLocked(error);
                throw;
            }

            count = Writer.WrittenCount;
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

    /// <summary>Gets the write side: stages records and hands them to the OS. Guarded by _appendLock but for its Written.</summary>
    internal LogFileWriter Writer { get; }

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

            Writer.WriteBuffer();
            Volatile.Write(ref _syncable, Writer.WrittenCount);
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

    // After staging, under the append lock: Buffered publishes what is buffered; WriteThrough writes it, then publishes;
    // Fsync writes it and leaves the publishing to the fsync that covers it.
    private void CommitLocked()
    {
        if (_policy != FileFlushPolicy.Buffered)
        {
            Writer.WriteBuffer();
        }

        Volatile.Write(ref _syncable, Writer.WrittenCount);
        if (_policy != FileFlushPolicy.Fsync)
        {
            _records.Publish(_records.StagedCount);
        }
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
            var keep = Math.Min(_records.Count, Writer.WrittenCount);
            _records.Publish(keep);
            _records.Unstage(keep);
            Writer.Discard();
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
