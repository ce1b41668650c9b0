using System.Diagnostics.CodeAnalysis;

namespace Concurrency.Messaging.Logs;

/// <summary>
/// An append-only log: entries get dense indexes 0, 1, 2, … in one total order, an append is atomic (its entry is wholly
/// there or not at all) and <see cref="Get(long)"/> is idempotent (the same index always returns the same bytes).
/// Safe for any number of threads: appends are serialized by the log's write lock, reads never see a half-written entry.
/// </summary>
/// <remarks>
/// Create one with <see cref="AppendLog"/>. What survives a crash depends on the implementation and its
/// <see cref="FileFlushPolicy"/>; each factory method says it. <see cref="IDisposable.Dispose"/> is <see cref="Close"/>.
/// </remarks>
public interface IAppendLog : IDisposable
{
    /// <summary>Gets the number of entries: the index the next append gets.</summary>
    /// <exception cref="ObjectDisposedException">The log is closed.</exception>
    long Count { get; }

    /// <summary>Appends a copy of <paramref name="entry"/>.</summary>
    /// <param name="entry">The bytes of the entry; may be empty. The log copies them before it returns.</param>
    /// <returns>The index of the entry.</returns>
    /// <exception cref="ObjectDisposedException">The log is closed.</exception>
    /// <exception cref="IOException">
    /// The log could not write or fsync, now or earlier. A durable log is then faulted for good: the entry is not in it (nor,
    /// as far as the file can still be cut, after a reopen), every later append and flush throws with the first error as the
    /// inner exception, and <see cref="Count"/> and <see cref="Get"/> serve the entries its policy had made good. Nothing is
    /// retried: reopen the log to go on.
    /// </exception>
    long Append(ReadOnlySpan<byte> entry);

    /// <summary>
    /// Appends copies of <paramref name="entries"/> at contiguous indexes, in order, no other append between them, and does
    /// the policy's flush step once for all of them (group commit).
    /// </summary>
    /// <param name="entries">The entries; may be empty.</param>
    /// <returns>The index of the first entry (<see cref="Count"/> before the call when there were none).</returns>
    /// <exception cref="ArgumentNullException"><paramref name="entries"/> is <see langword="null"/>.</exception>
    /// <exception cref="ObjectDisposedException">The log is closed.</exception>
    /// <exception cref="IOException">The log could not write or fsync; as for <see cref="Append"/>, none of the batch is in it.</exception>
    long AppendBatch(IReadOnlyList<ReadOnlyMemory<byte>> entries);

    /// <summary>Gets a copy of the entry at <paramref name="index"/>; changing it does not change the log.</summary>
    /// <param name="index">An index below <see cref="Count"/>.</param>
    /// <returns>The bytes appended at that index.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="index"/> is negative or not below <see cref="Count"/>.</exception>
    /// <exception cref="ObjectDisposedException">The log is closed.</exception>
    [SuppressMessage("Naming", "CA1716:Identifiers should not match keywords", Justification = "Get(index) is the seed's and the issue's name for the read of a log.")]
    byte[] Get(long index);

    /// <summary>
    /// Makes every entry appended so far durable: hands it to the operating system and forces it to the disk (fsync), whatever
    /// the policy. A log kept in memory only has nothing to do.
    /// </summary>
    /// <exception cref="ObjectDisposedException">The log is closed.</exception>
    /// <exception cref="IOException">The write or the fsync failed, now or earlier: the log is faulted (see <see cref="Append"/>).</exception>
    void Flush();

    /// <summary>
    /// Closes the log: hands what it buffers to the operating system (and to the disk where the policy fsyncs), then releases
    /// its resources. Later calls do nothing; other members then throw <see cref="ObjectDisposedException"/>.
    /// </summary>
    void Close();
}
