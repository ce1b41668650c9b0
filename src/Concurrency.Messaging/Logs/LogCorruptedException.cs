namespace Concurrency.Messaging.Logs;

/// <summary>
/// A file log has a bad record with valid records after it: corruption in the middle of the file (a flipped bit, a bad
/// sector), not the torn tail a crash leaves. Opening cuts nothing in that case; <see cref="AppendLog.RepairFile(string)"/>
/// cuts the log at <see cref="Offset"/> and keeps what it cuts in a side file.
/// </summary>
public sealed class LogCorruptedException : IOException
{
    /// <summary>Initializes a new instance of the <see cref="LogCorruptedException"/> class.</summary>
    public LogCorruptedException()
        : this("The log file has a bad record with valid records after it.")
    {
    }

    /// <summary>Initializes a new instance of the <see cref="LogCorruptedException"/> class with a message.</summary>
    /// <param name="message">The message.</param>
    public LogCorruptedException(string message)
        : base(message)
    {
        FilePath = string.Empty;
    }

    /// <summary>Initializes a new instance of the <see cref="LogCorruptedException"/> class with a message and a cause.</summary>
    /// <param name="message">The message.</param>
    /// <param name="innerException">The cause.</param>
    public LogCorruptedException(string message, Exception innerException)
        : base(message, innerException)
    {
        FilePath = string.Empty;
    }

    /// <summary>Initializes a new instance of the <see cref="LogCorruptedException"/> class for a file.</summary>
    /// <param name="filePath">The log file.</param>
    /// <param name="offset">The file offset of the first bad record.</param>
    /// <param name="entriesBefore">The entries that check out before it.</param>
    /// <param name="recordsAfter">The records that check out after it.</param>
    public LogCorruptedException(string filePath, long offset, long entriesBefore, long recordsAfter)
        : base($"The log file '{filePath}' has a bad record at offset {offset}, after {entriesBefore} good entries, and {recordsAfter} valid records after it: "
            + "corruption in the middle of the file, not a torn tail, so nothing was cut. AppendLog.RepairFile cuts the log there and keeps what it cuts in a side file.")
    {
        FilePath = filePath;
        Offset = offset;
        EntriesBefore = entriesBefore;
        RecordsAfter = recordsAfter;
    }

    /// <summary>Gets the log file.</summary>
    public string FilePath { get; }

    /// <summary>Gets the file offset of the first bad record.</summary>
    public long Offset { get; }

    /// <summary>Gets how many entries check out before the bad record (the entries a repair keeps).</summary>
    public long EntriesBefore { get; }

    /// <summary>
    /// Gets how many records check out after the bad record (not counting records that lie within its length, which can be
    /// its own entry's bytes).
    /// </summary>
    public long RecordsAfter { get; }
}
