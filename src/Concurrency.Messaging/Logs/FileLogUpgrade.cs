namespace Concurrency.Messaging.Logs;

/// <summary>
/// Converts a file log of format 0 (records of length and checksum from offset 0, no header, no record marker) to the
/// current format (see <see cref="LogRecord"/>). The original is renamed, never changed.
/// </summary>
internal static class FileLogUpgrade
{
    public static long Run(string path)
    {
        var original = path + ".v0";
        var upgrading = path + ".upgrading";
        if (File.Exists(original))
        {
            throw new IOException($"'{original}' exists: the upgrade keeps the original there. Move it away first; nothing was changed.");
        }

        var records = new List<RecordLocation>();
        using (var storage = FileLogStorage.Open(path))
        {
            var length = storage.Length;
            Span<byte> start = stackalloc byte[LogRecord.FileHeaderSize];
            if (length >= start.Length && storage.Read(start, 0) == start.Length
                && LogRecord.CheckFileHeader(start, out _) != LogRecord.FileHeaderCheck.NotALog)
            {
                throw new InvalidDataException($"The log file '{path}' already has the log's header; it needs no upgrade. Nothing was changed.");
            }

            if (length > 0 && !LogFileScan.StartsWithLegacyRecord(storage, length))
            {
                throw new InvalidDataException($"'{path}' is not a file log of format 0: its first record does not check out. Nothing was changed.");
            }

            LogFileScan.Scan(storage, length, 0, records, legacy: true);
            CopyRecords(storage, records, upgrading);
        }

        File.Move(path, original);
        File.Move(upgrading, path);
        return records.Count;
    }

    // Writes the new file: the header, then each record with its marker, the same length and checksum, the same bytes.
    private static void CopyRecords(FileLogStorage storage, List<RecordLocation> records, string upgrading)
    {
        using var target = File.OpenHandle(upgrading, FileMode.Create, FileAccess.Write, FileShare.None);
        Span<byte> header = stackalloc byte[LogRecord.FileHeaderSize];
        LogRecord.WriteFileHeader(header);
        RandomAccess.Write(target, header, 0);
        long offset = LogRecord.FileHeaderSize;
        var entry = Array.Empty<byte>();
        foreach (var record in records)
        {
            if (entry.Length < record.Length)
            {
                entry = new byte[Math.Max(record.Length, entry.Length * 2)];
            }

            var payload = entry.AsSpan(0, record.Length);
            for (var read = 0; read < payload.Length;)
            {
                var got = storage.Read(payload[read..], record.Offset + LogRecord.LegacyHeaderSize + read);
                if (got == 0)
                {
                    throw new IOException("The log file ended before a record it holds.");
                }

                read += got;
            }

            LogRecord.WriteHeader(header, record.Length, LogRecord.Checksum(payload));
            RandomAccess.Write(target, header[..LogRecord.HeaderSize], offset);
            RandomAccess.Write(target, payload, offset + LogRecord.HeaderSize);
            offset += LogRecord.HeaderSize + record.Length;
        }

        RandomAccess.FlushToDisk(target);
    }
}
