using Concurrency.Messaging.Logs;
using Concurrency.Messaging.RocksDb;

namespace Concurrency.Benchmarks.Lab.Logs;

/// <summary>The logs the experiment measures, in the order its tables list them.</summary>
public static class LogContenders
{
    public const string Ours = "ours";
    public const string Baseline = "baseline";
    public const string Peer = "peer";

    public static LogContender LockedList { get; } = new(
        "List + ReaderWriterLockSlim", Baseline, "none (memory only)", _ => new LockedListRun());

    public static LogContender InMemory { get; } = new(
        "in-memory log", Ours, "none (memory only)", _ => new AppendLogRun(AppendLog.InMemory()));

    public static LogContender LockedFileStream { get; } = new(
        "FileStream + lock", Baseline, "kill: loses ≤ 64 KiB buffer; power: more", dir => new LockedFileStreamRun(dir));

    public static LogContender FileBuffered { get; } = new(
        "file log, Buffered", Ours, "kill: loses ≤ 64 KiB buffer; power: more", dir => new AppendLogRun(OpenFile(dir, FileFlushPolicy.Buffered)));

    public static LogContender FileWriteThrough { get; } = new(
        "file log, WriteThrough", Ours, "kill: loses nothing; power: unsynced", dir => new AppendLogRun(OpenFile(dir, FileFlushPolicy.WriteThrough)));

    public static LogContender AsyncFileFsync { get; } = new(
        "async log over file, Fsync", Ours, "nothing once completed (fsync per batch)", dir => new AsyncAppendLogRun(AppendLog.Async(OpenFile(dir, FileFlushPolicy.Fsync))));

    public static LogContender RocksDb { get; } = new(
        "RocksDB log (WAL, no sync)", Ours, "kill: loses nothing; power: unsynced", dir => new AppendLogRun(RocksDbAppendLog.Open(Path.Combine(dir, "store"))));

    public static LogContender Faster { get; } = new(
        "FasterLog Enqueue", Peer, "everything since the last commit (none here)", dir => new FasterLogRun(dir));

    public static IReadOnlyList<LogContender> All { get; } =
        [LockedList, InMemory, LockedFileStream, FileBuffered, FileWriteThrough, AsyncFileFsync, RocksDb, Faster];

    private static IAppendLog OpenFile(string directory, FileFlushPolicy policy)
        => AppendLog.OpenFile(Path.Combine(directory, "entries.log"), new FileLogOptions { FlushPolicy = policy });
}
