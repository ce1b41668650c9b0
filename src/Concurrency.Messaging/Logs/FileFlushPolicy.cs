namespace Concurrency.Messaging.Logs;

/// <summary>
/// When a file log's appends reach the operating system and the disk, and so what a crash can lose. "Process killed" means
/// the process dies (kill -9, a crash) while the machine runs on; "power loss" means the machine stops, losing what the
/// operating system had not yet written back to the disk. <see cref="IAppendLog.Flush"/> and <see cref="IAppendLog.Close"/>
/// bound the loss under every policy: Flush fsyncs, Close hands everything to the operating system.
/// </summary>
public enum FileFlushPolicy
{
    /// <summary>
    /// Appends collect in the log's own buffer (<see cref="FileLogOptions.BufferSize"/> bytes) and reach the operating
    /// system when it fills, on Flush and on Close; nothing is fsynced unless Flush is called.
    /// Process killed: loses the entries still in the buffer, at most <see cref="FileLogOptions.BufferSize"/> bytes of records.
    /// Power loss: also loses whatever the operating system had not written back since the last Flush.
    /// This is the durability of an in-memory log such as FasterLog between its commits.
    /// </summary>
    Buffered,

    /// <summary>
    /// Each append is handed to the operating system (one write call) before it returns; nothing is fsynced unless Flush is called.
    /// Process killed: loses nothing that an append returned. Power loss: loses what the operating system had not yet
    /// written back since the last Flush (on Linux typically up to about 30 seconds of appends).
    /// </summary>
    WriteThrough,

    /// <summary>
    /// Each append is written and fsynced before it returns. Appends from many threads share an fsync (group commit):
    /// one thread forces everything written so far while the others keep appending, and an append whose bytes an earlier
    /// fsync covered returns without its own. <see cref="IAppendLog.AppendBatch"/> fsyncs once per batch.
    /// Process killed or power loss: loses nothing that an append returned, as far as the disk honours fsync.
    /// </summary>
    Fsync,
}
