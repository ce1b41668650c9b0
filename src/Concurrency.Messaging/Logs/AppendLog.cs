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
    /// Opens (or creates) an append-only file log at <paramref name="path"/>. Each entry is a record: its length and a
    /// CRC-32C of length and bytes, then the bytes. Opening reads every record back; it stops at the first record that is
    /// incomplete or fails its checksum (a torn write at a crash) and truncates the file there. Get reads from the file
    /// at offsets kept in memory (12 bytes per entry).
    /// </summary>
    /// <param name="path">The file; its directory must exist. One log at a time may have it open.</param>
    /// <param name="options">Options; <see langword="null"/> for the defaults (<see cref="FileFlushPolicy.WriteThrough"/>).</param>
    /// <returns>An open log holding every complete record the file had.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="path"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentException"><paramref name="path"/> is empty.</exception>
    /// <exception cref="ArgumentOutOfRangeException">The buffer size is below 64 bytes, or the policy is unknown.</exception>
    /// <exception cref="IOException">The file could not be opened or read.</exception>
    public static IAppendLog OpenFile(string path, FileLogOptions? options = null)
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
}
