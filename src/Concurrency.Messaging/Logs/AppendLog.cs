namespace Concurrency.Messaging.Logs;

/// <summary>Creates <see cref="IAppendLog"/> instances.</summary>
public static class AppendLog
{
    /// <summary>
    /// Creates a log kept in memory only: nothing survives the process. Appends copy entries into large shared segments
    /// (no allocation per entry) under a lock; Get reads the published entries without a lock.
    /// </summary>
    /// <returns>An empty, open log.</returns>
    public static IAppendLog InMemory() => new InMemoryLog();

    /// <summary>
    /// Opens (or creates) an append-only file log at <paramref name="path"/>. The file starts with a header (magic and format
    /// version); each entry is a record: a marker, its length and a CRC-32C of length and bytes, then the bytes. Opening reads
    /// every record back. Recovery, in RocksDB's terms: a corrupted tail is tolerated (<c>kTolerateCorruptedTailRecords</c>),
    /// the rest is held to absolute consistency (<c>kAbsoluteConsistency</c>):
    /// <list type="bullet">
    /// <item>a bad record (incomplete, or failing its checksum) with no valid record after it is the torn tail a crash leaves,
    /// or a last record damaged since it was written (under <see cref="FileFlushPolicy.Fsync"/>, possibly an entry whose
    /// append returned): it is copied, byte for byte, to the side file <c><paramref name="path"/>.cut-OFFSET</c>, then cut,
    /// and the log opens with the records before it and reports the cut in <see cref="IFileAppendLog.TailCut"/>;</item>
    /// <item>a bad record with valid records after it is corruption: open cuts nothing and throws
    /// <see cref="LogCorruptedException"/>; <see cref="RepairFile(string)"/> then cuts the log there, keeping what it cuts;</item>
    /// <item>a file that is not a log (no header) is refused without being changed, and so is a log of format 0 (written
    /// before the header), with a message that names <see cref="UpgradeFile(string)"/>.</item>
    /// </list>
    /// Get reads from the file at offsets kept in memory (12 bytes per entry). A failed write or fsync faults the log for
    /// good: see <see cref="IAppendLog.Append(ReadOnlySpan{byte})"/>.
    /// </summary>
    /// <param name="path">The file; its directory must exist. One log at a time may have it open: a second open, in this
    /// process or another, throws <see cref="IOException"/> (the file is locked: on Linux and macOS an advisory lock every log
    /// takes; other programs that read the file while it is open must not lock it either).</param>
    /// <param name="options">Options; <see langword="null"/> for the defaults (<see cref="FileFlushPolicy.WriteThrough"/>).</param>
    /// <returns>An open log holding every record the file had up to a bad tail, and what it cut.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="path"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentException"><paramref name="path"/> is empty.</exception>
    /// <exception cref="ArgumentOutOfRangeException">The buffer size is below 64 bytes, or the policy is unknown.</exception>
    /// <exception cref="LogCorruptedException">A bad record has valid records after it; the file was not changed.</exception>
    /// <exception cref="InvalidDataException">The file is not a log of the current format; the file was not changed.</exception>
    /// <exception cref="IOException">The file could not be opened or read, or another log has it open.</exception>
    public static IFileAppendLog OpenFile(string path, FileLogOptions? options = null)
    {
        ArgumentException.ThrowIfNullOrEmpty(path);
        options ??= new FileLogOptions();
        ArgumentOutOfRangeException.ThrowIfLessThan(options.BufferSize, 64, nameof(options));
        if (!Enum.IsDefined(options.FlushPolicy))
        {
            throw new ArgumentOutOfRangeException(nameof(options), options.FlushPolicy, "Unknown flush policy.");
        }

        return FileLog.Open(path, options);
    }

    /// <summary>
    /// Repairs a file log that <see cref="OpenFile"/> refused with <see cref="LogCorruptedException"/>: cuts it at its first
    /// bad record (point-in-time recovery: every entry before it keeps its index) after copying everything from there to the
    /// end, byte for byte, into the side file <c><paramref name="path"/>.cut-OFFSET</c> (with <c>.N</c> added when one is
    /// there already), and makes both durable. Nothing is destroyed: the valid records after the bad one are in the side
    /// file. A file header that fails its check in front of a record that checks out (a flipped bit in the header) is
    /// rebuilt first, the old one kept in the side file <c><paramref name="path"/>.header</c>
    /// (<see cref="FileLogRepair.HeaderFile"/>). A sound log is left as it is.
    /// </summary>
    /// <param name="path">The log file; no log may have it open.</param>
    /// <returns>What was kept and cut, and where the cut bytes are.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="path"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentException"><paramref name="path"/> is empty.</exception>
    /// <exception cref="FileNotFoundException">There is no such file.</exception>
    /// <exception cref="InvalidDataException">The file is not a log of the current format; it was not changed.</exception>
    /// <exception cref="IOException">The file could not be read or cut, or a log has it open.</exception>
    public static FileLogRepair RepairFile(string path)
    {
        ArgumentException.ThrowIfNullOrEmpty(path);
        RequireFile(path);
        return FileLogRepair.Run(path);
    }

    /// <summary>
    /// Converts a file log of format 0 (written before the log had a file header) to the current format, once: writes the
    /// new file beside it and makes it durable, copies the original to <c><paramref name="path"/>.v0</c> (never changed),
    /// then renames the new file over <paramref name="path"/> in one atomic step, so that a crash leaves the path holding
    /// either log whole. Records up to the first bad one are carried, with their bytes and checksums; format 0 has no
    /// record markers, so whatever follows them (a torn tail, or corruption) is not carried but copied, byte for byte, to a
    /// side file <c><paramref name="path"/>.cut-OFFSET</c> as well.
    /// </summary>
    /// <param name="path">The log file; no log may have it open.</param>
    /// <returns>The entries carried (<see cref="FileLogRepair.EntriesKept"/>) and what was left behind.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="path"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentException"><paramref name="path"/> is empty.</exception>
    /// <exception cref="FileNotFoundException">There is no such file.</exception>
    /// <exception cref="InvalidDataException">The file is not a log of format 0 (or is already in the current one); it was not changed.</exception>
    /// <exception cref="IOException">The file could not be read, a log has it open, or <c>.v0</c> exists already.</exception>
    public static FileLogRepair UpgradeFile(string path)
    {
        ArgumentException.ThrowIfNullOrEmpty(path);
        RequireFile(path);
        return FileLogUpgrade.Run(path);
    }

    /// <summary>
    /// Wraps <paramref name="inner"/> so that appends return at once and complete when durable; see <see cref="IAsyncAppendLog"/>.
    /// The wrapper owns <paramref name="inner"/>: closing the wrapper closes it. Nothing else should append to it meanwhile.
    /// </summary>
    /// <param name="inner">The log the single writer appends to, one batch of queued entries at a time.</param>
    /// <returns>An open asynchronous log.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="inner"/> is <see langword="null"/>.</exception>
    public static IAsyncAppendLog Async(IAppendLog inner)
    {
        ArgumentNullException.ThrowIfNull(inner);
        return new AsyncLog(inner);
    }

    // Repair and upgrade open the file with OpenOrCreate for the lock; a missing file must not be created by them.
    private static void RequireFile(string path)
    {
        if (!File.Exists(path))
        {
            throw new FileNotFoundException($"There is no log file '{path}'.", path);
        }
    }
}
