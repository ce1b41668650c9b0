namespace Concurrency.Messaging.Logs;

/// <summary>Options for <see cref="AppendLog.OpenFile(string, FileLogOptions?)"/>.</summary>
public sealed record FileLogOptions
{
    /// <summary>The default of <see cref="BufferSize"/>: 64 KiB.</summary>
    public const int DefaultBufferSize = 64 * 1024;

    /// <summary>
    /// Gets when appends reach the operating system and the disk. Defaults to <see cref="FileFlushPolicy.WriteThrough"/>:
    /// an append that returned survives its process being killed, not a power loss.
    /// </summary>
    public FileFlushPolicy FlushPolicy { get; init; } = FileFlushPolicy.WriteThrough;

    /// <summary>
    /// Gets the size in bytes of the log's own write buffer: under <see cref="FileFlushPolicy.Buffered"/>, the most a killed
    /// process can lose. A record (12 bytes of header plus the entry) larger than the buffer is written on its own.
    /// Defaults to <see cref="DefaultBufferSize"/>.
    /// </summary>
    public int BufferSize { get; init; } = DefaultBufferSize;
}
