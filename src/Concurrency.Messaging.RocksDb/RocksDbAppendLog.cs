using Concurrency.Messaging.Logs;

namespace Concurrency.Messaging.RocksDb;

/// <summary>
/// Creates <see cref="IAppendLog"/> instances kept in RocksDB, an embedded LSM store (native library, hence a package of
/// its own). Entry i is stored under the key i as 8 big-endian bytes, so keys sort in log order; RocksDB's write-ahead log
/// stays on.
/// </summary>
public static class RocksDbAppendLog
{
    /// <summary>
    /// Opens (or creates) a RocksDB log in the directory <paramref name="path"/>; its count is the last key plus one.
    /// RocksDB hands every write to the operating system, so <see cref="FileFlushPolicy.Buffered"/> behaves as
    /// <see cref="FileFlushPolicy.WriteThrough"/>: a killed process loses nothing an append returned, a power loss loses what
    /// the operating system had not written back. <see cref="FileFlushPolicy.Fsync"/> makes each write (each
    /// <see cref="IAppendLog.AppendBatch"/> once) sync the write-ahead log, and loses nothing an append returned.
    /// Appends are write-locked (one at a time, as the index is taken and the entry put); Get is read-locked, so Close
    /// never frees the native store under a reader.
    /// </summary>
    /// <param name="path">The directory of the store; created if missing. One log at a time may have it open.</param>
    /// <param name="policy">When writes reach the disk; see above.</param>
    /// <returns>An open log holding every entry the store had.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="path"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentException"><paramref name="path"/> is empty.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="policy"/> is unknown.</exception>
    /// <exception cref="RocksDbSharp.RocksDbException">RocksDB could not open the store.</exception>
    public static IAppendLog Open(string path, FileFlushPolicy policy = FileFlushPolicy.WriteThrough)
    {
        ArgumentException.ThrowIfNullOrEmpty(path);
        if (!Enum.IsDefined(policy))
        {
            throw new ArgumentOutOfRangeException(nameof(policy), policy, "Unknown flush policy.");
        }

        return RocksDbLog.Open(path, policy);
    }
}
