namespace Concurrency.Messaging.Logs;

/// <summary>The file log's header (format in <see cref="LogRecord"/>): checked, or written into a new file, at open and repair.</summary>
internal static class LogFileHeader
{
    /// <summary>
    /// Checks the file's header, or writes one into an empty file (or one that holds only the start of a header, as a crash
    /// at creation leaves) when <paramref name="create"/>, and forces it and its folder entry. Refuses everything else
    /// without changing it.
    /// </summary>
    /// <exception cref="InvalidDataException">The file is not a log of this format; the message says what it is.</exception>
    public static void Prepare(string path, ILogStorage storage, bool create)
    {
        var length = storage.Length;
        Span<byte> header = stackalloc byte[LogRecord.FileHeaderSize];
        var read = 0;
        while (read < header.Length && storage.Read(header[read..], read) is var got and > 0)
        {
            read += got;
        }

        if (create && length < LogRecord.FileHeaderSize && LogRecord.IsFileHeaderPrefix(header[..read]))
        {
            LogRecord.WriteFileHeader(header);
            storage.Write(header, 0);
            storage.SetLength(LogRecord.FileHeaderSize);
            storage.Flush();

            // The file is new (or its creation was cut short): without its folder entry forced, a power loss can take the
            // file, and every entry fsynced into it, with it.
            storage.FlushFolder();
            return;
        }

        uint version = 0;
        var check = read == header.Length ? LogRecord.CheckFileHeader(header, out version) : LogRecord.FileHeaderCheck.NotALog;
        if (check == LogRecord.FileHeaderCheck.Valid)
        {
            return;
        }

        if (check == LogRecord.FileHeaderCheck.NotALog && LogFileScan.StartsWithLegacyRecord(storage, length))
        {
            throw new InvalidDataException(
                $"The log file '{path}' was written by an earlier version of the file log (format 0, without a header). Convert it once with AppendLog.UpgradeFile, which keeps the original beside it; nothing was changed.");
        }

        throw new InvalidDataException(check switch
        {
            LogRecord.FileHeaderCheck.Corrupt => $"The header of the log file '{path}' fails its checksum; nothing was changed. AppendLog.RepairFile rebuilds it when the records behind it check out, keeping the old one in a side file.",
            LogRecord.FileHeaderCheck.OtherVersion => $"The log file '{path}' is in format {version}; this version of the library reads format {LogRecord.FormatVersion}. Nothing was changed.",
            _ => $"'{path}' is not a file log: it does not start with the log's header. Nothing was changed.",
        });
    }
}
