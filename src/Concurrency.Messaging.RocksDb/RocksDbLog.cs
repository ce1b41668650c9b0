using System.Buffers.Binary;
using Concurrency.Messaging.Logs;
using RocksDbSharp;

namespace Concurrency.Messaging.RocksDb;

/// <summary>
/// The log in RocksDB, guarded by a reader-writer lock as the seed's logs are: appends and Close write-locked, Get and
/// Count read-locked. Here the read lock matters beyond ordering: a Get racing Close would otherwise read a freed store.
/// </summary>
internal sealed class RocksDbLog : IAppendLog
{
    private readonly RocksDbSharp.RocksDb _db;
    private readonly WriteOptions _writeOptions;
    private readonly WriteOptions _syncOptions = new WriteOptions().SetSync(true);

    // Write-locked by appends, Flush and Close; read-locked by Get and Count.
    private readonly ReaderWriterLockSlim _lock = new();

    // Entries in the store. Guarded by _lock.
    private long _count;

    // Set once by Close under the write lock. Guarded by _lock.
    private bool _closed;

    private RocksDbLog(RocksDbSharp.RocksDb db, WriteOptions writeOptions, long count)
    {
        _db = db;
        _writeOptions = writeOptions;
        _count = count;
    }

    public long Count
    {
        get
        {
            _lock.EnterReadLock();
            try
            {
                ThrowIfClosed();
                return _count;
            }
            finally
            {
                _lock.ExitReadLock();
            }
        }
    }

    public static RocksDbLog Open(string path, FileFlushPolicy policy)
    {
        var options = new DbOptions().SetCreateIfMissing(true);
        var db = RocksDbSharp.RocksDb.Open(options, path);
        try
        {
            long count = 0;
            using (var last = db.NewIterator().SeekToLast())
            {
                if (last.Valid())
                {
                    count = BinaryPrimitives.ReadInt64BigEndian(last.GetKeySpan()) + 1;
                }
            }

            var writeOptions = new WriteOptions().SetSync(policy == FileFlushPolicy.Fsync);
            return new RocksDbLog(db, writeOptions, count);
        }
        catch
        {
            db.Dispose();
            throw;
        }
    }

    public long Append(ReadOnlySpan<byte> entry)
    {
        Span<byte> key = stackalloc byte[sizeof(long)];
        _lock.EnterWriteLock();
        try
        {
            ThrowIfClosed();
            var index = _count;
            BinaryPrimitives.WriteInt64BigEndian(key, index);
            _db.Put(key, entry, null, _writeOptions);
            _count = index + 1;
            return index;
        }
        finally
        {
            _lock.ExitWriteLock();
        }
    }

    public long AppendBatch(IReadOnlyList<ReadOnlyMemory<byte>> entries)
    {
        ArgumentNullException.ThrowIfNull(entries);
        Span<byte> key = stackalloc byte[sizeof(long)];
        using var batch = new WriteBatch();
        _lock.EnterWriteLock();
        try
        {
            ThrowIfClosed();
            var first = _count;
            for (var i = 0; i < entries.Count; i++)
            {
                BinaryPrimitives.WriteInt64BigEndian(key, first + i);
                batch.Put(key, entries[i].Span, null);
            }

            if (entries.Count > 0)
            {
                _db.Write(batch, _writeOptions);
            }

            _count = first + entries.Count;
            return first;
        }
        finally
        {
            _lock.ExitWriteLock();
        }
    }

    public byte[] Get(long index)
    {
        Span<byte> key = stackalloc byte[sizeof(long)];
        BinaryPrimitives.WriteInt64BigEndian(key, index);
        _lock.EnterReadLock();
        try
        {
            ThrowIfClosed();
            if ((ulong)index >= (ulong)_count)
            {
                throw new ArgumentOutOfRangeException(nameof(index), index, $"The log holds {_count} entries.");
            }

            return _db.Get(key, null, null) ?? throw new InvalidOperationException($"The store lacks entry {index} below its count.");
        }
        finally
        {
            _lock.ExitReadLock();
        }
    }

    /// <summary>Syncs the write-ahead log: a write of log data alone (no key) with sync on forces everything before it.</summary>
    public void Flush()
    {
        using var marker = new WriteBatch();
        marker.PutLogData([], 0);
        _lock.EnterWriteLock();
        try
        {
            ThrowIfClosed();
            _db.Write(marker, _syncOptions);
        }
        finally
        {
            _lock.ExitWriteLock();
        }
    }

    public void Close()
    {
        _lock.EnterWriteLock();
        try
        {
            if (_closed)
            {
                return;
            }

            _closed = true;
            _db.Dispose();
        }
        finally
        {
            _lock.ExitWriteLock();
        }
    }

    public void Dispose() => Close();

    private void ThrowIfClosed() => ObjectDisposedException.ThrowIf(_closed, this);
}
