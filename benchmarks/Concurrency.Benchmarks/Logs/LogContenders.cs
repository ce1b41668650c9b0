using Concurrency.Messaging.Logs;
using Concurrency.Messaging.RocksDb;

namespace Concurrency.Benchmarks.Logs;

/// <summary>How the logs game builds a contender: a fresh log in a directory of its own.</summary>
public delegate ILogRun LogBuild(string directory);

/// <summary>
/// The logs game's contenders, in the order its tables list them: who each is (ours, a baseline or the peer), what an append
/// that returned survives (its note), and how to open a fresh one.
/// </summary>
public static class LogContenders
{
    public static Contender<LogBuild> LockedList { get; } = new(
        "List + ReaderWriterLockSlim", ContenderFamily.Baseline, _ => new LockedListRun()) { Note = "none (memory only)" };

    public static Contender<LogBuild> InMemory { get; } = new(
        "in-memory log", ContenderFamily.Ours, _ => new AppendLogRun(AppendLog.InMemory())) { Note = "none (memory only)" };

    public static Contender<LogBuild> LockedFileStream { get; } = new(
        "FileStream + lock", ContenderFamily.Baseline, dir => new LockedFileStreamRun(dir)) { Note = "kill: loses ≤ 64 KiB buffer; power: more" };

    public static Contender<LogBuild> FileBuffered { get; } = new(
        "file log, Buffered", ContenderFamily.Ours, dir => new AppendLogRun(OpenFile(dir, FileFlushPolicy.Buffered))) { Note = "kill: loses ≤ 64 KiB buffer; power: more" };

    public static Contender<LogBuild> FileWriteThrough { get; } = new(
        "file log, WriteThrough", ContenderFamily.Ours, dir => new AppendLogRun(OpenFile(dir, FileFlushPolicy.WriteThrough))) { Note = "kill: loses nothing; power: unsynced" };

    public static Contender<LogBuild> AsyncFileFsync { get; } = new(
        "async log over file, Fsync", ContenderFamily.Ours, dir => new AsyncAppendLogRun(AppendLog.Async(OpenFile(dir, FileFlushPolicy.Fsync)))) { Note = "nothing once completed (fsync per batch)" };

    public static Contender<LogBuild> RocksDb { get; } = new(
        "RocksDB log (WAL, no sync)", ContenderFamily.Ours, dir => new AppendLogRun(RocksDbAppendLog.Open(Path.Combine(dir, "store")))) { Note = "kill: loses nothing; power: unsynced" };

    public static Contender<LogBuild> Faster { get; } = new(
        "FasterLog Enqueue", ContenderFamily.Peer, dir => new FasterLogRun(dir)) { Note = "everything since the last commit (none here)" };

    public static ContenderRegistry<LogBuild> Registry { get; } = new("logs",
        [LockedList, InMemory, LockedFileStream, FileBuffered, FileWriteThrough, AsyncFileFsync, RocksDb, Faster]);

    public static IReadOnlyList<Contender<LogBuild>> All => Registry.All;

    private static IAppendLog OpenFile(string directory, FileFlushPolicy policy)
        => AppendLog.OpenFile(Path.Combine(directory, "entries.log"), new FileLogOptions { FlushPolicy = policy });
}
