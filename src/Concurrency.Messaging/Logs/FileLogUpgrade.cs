using Concurrency.Messaging.Internal;

namespace Concurrency.Messaging.Logs;

/// <summary>
/// Converts a file log of format 0 (records of length and checksum from offset 0, no header, no record marker) to the
/// current format (see <see cref="LogRecord"/>). The original is copied, never changed, and a crash at any step leaves the
/// log's path holding either the original or the whole new file: the new file is written and forced beside it, the copy
/// of the original made and forced, and only then is the new file renamed over the path (one atomic rename) and the
/// folder forced. The original stays locked until the rename is forced: a log that opened it in between would append
/// to a file the rename replaces.
/// </summary>
internal static class FileLogUpgrade
{
    /// <param name="path">The log file.</param>
    /// <param name="beforeRename">For tests: runs just before the rename, with the original still locked.</param>
    public static FileLogRepair Run(string path, Action? beforeRename = null)
    {
        var original = path + ".v0";
        var upgrading = path + ".upgrading";
        if (File.Exists(original))
        {
            throw new IOException($"'{original}' exists: the upgrade keeps a copy of the original there. Move it away first; nothing was changed.");
        }

        var directory = Path.GetDirectoryName(Path.GetFullPath(path))!;
        var records = new List<RecordLocation>();
        string? leftOver = null;
        long leftOverBytes;
        using (var storage = FileLogStorage.Open(path, allowRename: true))
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

            var scan = LogFileScan.Scan(storage, length, 0, records, legacy: true);
            leftOverBytes = length - scan.ValidEnd;
            if (leftOverBytes > 0)
            {
                // Format 0 has no markers, so a torn tail and corruption look alike: what follows the last good record is
                // not carried, and is kept byte for byte beside the log as well as in the copy of the original.
                leftOver = FileLogRepair.CopyTail(storage, path, scan.ValidEnd, length);
            }

            CopyRecords(storage, path, records, upgrading);
            FileLogRepair.CopyBytes(storage, path, original, 0, length);
            beforeRename?.Invoke();
            File.Move(upgrading, path, overwrite: true);
            DurableFolder.Flush(directory);
        }

        return new FileLogRepair(records.Count, leftOverBytes, 0, leftOver);
    }
    // Writes the new file: the header, then each record with its marker, the same length and checksum, the same bytes.
    private static void CopyRecords(ILogStorage storage, string path, List<RecordLocation> records, string upgrading)
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
            storage.ReadExactly(payload, record.Offset + LogRecord.LegacyHeaderSize, path);

            LogRecord.WriteHeader(header, record.Length, LogRecord.Checksum(payload));
            RandomAccess.Write(target, header[..LogRecord.HeaderSize], offset);
            RandomAccess.Write(target, payload, offset + LogRecord.HeaderSize);
            offset += LogRecord.HeaderSize + record.Length;
        }

        RandomAccess.FlushToDisk(target);
    }
}
