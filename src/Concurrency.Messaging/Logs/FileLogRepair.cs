using System.Globalization;
using Concurrency.Messaging.Internal;

namespace Concurrency.Messaging.Logs;

/// <summary>
/// What <see cref="AppendLog.RepairFile(string)"/> or <see cref="AppendLog.UpgradeFile(string)"/> did to a file log, or what
/// opening it cut (<see cref="IFileAppendLog.TailCut"/>).
/// </summary>
/// <param name="EntriesKept">The entries the log holds afterwards: every one before the first bad record.</param>
/// <param name="BytesCut">The bytes cut from the log, from the first bad record to the end (0 when there was none).</param>
/// <param name="RecordsCut">The records that checked out among the bytes cut (a repair counts them by their markers; an
/// upgrade of format 0, which has none, gives 0); they are in <paramref name="CutFile"/>.</param>
/// <param name="CutFile">The side file that holds the bytes cut, byte for byte; <see langword="null"/> when nothing was cut.</param>
public sealed record FileLogRepair(long EntriesKept, long BytesCut, long RecordsCut, string? CutFile)
{
    /// <summary>
    /// Gets the side file that keeps, byte for byte, the file header a repair replaced (it failed its check, and the records
    /// behind it checked out); <see langword="null"/> when the header was sound.
    /// </summary>
    public string? HeaderFile { get; init; }

    /// <summary>
    /// Rebuilds a damaged file header (see RebuildHeader), then cuts the log at its first bad record (point in time,
    /// RocksDB's <c>kPointInTimeRecovery</c>): copies everything from there to the end into a side file and makes it
    /// durable, then cuts the log and forces the cut.
    /// </summary>
    internal static FileLogRepair Run(string path)
    {
        using var storage = FileLogStorage.Open(path);
        var headerFile = RebuildHeader(storage, path);
        LogFileHeader.Prepare(path, storage, create: false);
        var length = storage.Length;
        var records = new List<RecordLocation>();
        var scan = LogFileScan.Scan(storage, length, LogRecord.FileHeaderSize, records);
        if (scan.ValidEnd == length)
        {
            return new FileLogRepair(records.Count, 0, 0, null) { HeaderFile = headerFile };
        }

        return CutTail(storage, path, records.Count, scan.ValidEnd, scan.RecordsAfter) with { HeaderFile = headerFile };
    }

    /// <summary>
    /// At open: reads the records back and cuts a bad tail (a bad record with no valid record after it) after copying it
    /// to a side file. A bad record with valid records after it is corruption: nothing is cut, and this throws.
    /// </summary>
    /// <exception cref="LogCorruptedException">A bad record has valid records after it.</exception>
    internal static (List<RecordLocation> Records, long End, FileLogRepair? TailCut) ReadBackAtOpen(ILogStorage storage, string path)
    {
        var length = storage.Length;
        var records = new List<RecordLocation>();
        var scan = LogFileScan.Scan(storage, length, LogRecord.FileHeaderSize, records);
        if (scan.ValidEnd == length)
        {
            return (records, length, null);
        }

        if (scan.RecordsAfter > 0)
        {
            throw new LogCorruptedException(path, scan.ValidEnd, records.Count, scan.RecordsAfter);
        }

        // A bad tail, nothing valid after it: a crash's unfinished write, or a last record damaged since its append returned
        // (under Fsync, an acknowledged entry), which the bytes cannot tell apart. Cut, so the next append does not land
        // behind it, but only once a side file keeps it, and reported, so no entry goes unseen.
        return (records, scan.ValidEnd, CutTail(storage, path, records.Count, scan.ValidEnd, recordsCut: 0));
    }

    // Copies everything from validEnd to the end into a side file and makes it durable, then cuts the log and forces the cut.
    private static FileLogRepair CutTail(ILogStorage storage, string path, long entriesKept, long validEnd, long recordsCut)
    {
        var length = storage.Length;
        var cutFile = CopyTail(storage, path, validEnd, length);
        storage.SetLength(validEnd);
        storage.Flush();
        return new FileLogRepair(entriesKept, length - validEnd, recordsCut, cutFile);
    }

    // A header that fails its check (not one of another version, whose checksum holds) in front of a record that checks
    // out is a damaged header, not another kind of file: a record's marker and checksum do not pass by chance. It is kept
    // in a side file, forced, and only then written over with a sound one. Returns the side file, or null when there was
    // nothing to rebuild (LogFileHeader.Prepare then refuses what is not a log).
    private static string? RebuildHeader(ILogStorage storage, string path)
    {
        var length = storage.Length;
        Span<byte> header = stackalloc byte[LogRecord.FileHeaderSize];
        if (length < header.Length)
        {
            return null;
        }

        storage.ReadExactly(header, 0, path);
        if (LogRecord.CheckFileHeader(header, out _) is LogRecord.FileHeaderCheck.Valid or LogRecord.FileHeaderCheck.OtherVersion
            || !LogFileScan.HasRecordAt(storage, length, LogRecord.FileHeaderSize))
        {
            return null;
        }

        var headerFile = FreeName(path + ".header");
        CopyBytes(storage, path, headerFile, 0, header.Length);
        LogRecord.WriteFileHeader(header);
        storage.Write(header, 0);
        storage.Flush();
        return headerFile;
    }

    /// <summary>
    /// Copies the log's bytes from <paramref name="from"/> to <paramref name="length"/> into a new side file,
    /// <c>PATH.cut-FROM</c> (<c>PATH.cut-FROM.N</c> when an earlier cut at the same offset kept its own there), and forces
    /// it and its folder entry to disk before anything is cut.
    /// </summary>
    internal static string CopyTail(ILogStorage storage, string path, long from, long length)
    {
        var cutFile = FreeName(path + ".cut-" + from.ToString(CultureInfo.InvariantCulture));
        CopyBytes(storage, path, cutFile, from, length);
        return cutFile;
    }

    // The name, or the name with .N added when a side file has it already: a side file is never overwritten, as it can
    // hold the only copy of what an earlier cut or repair took out.
    private static string FreeName(string name)
    {
        var free = name;
        for (var n = 1; File.Exists(free); n++)
        {
            free = name + "." + n.ToString(CultureInfo.InvariantCulture);
        }

        return free;
    }

    /// <summary>
    /// Copies the log's bytes from <paramref name="from"/> to <paramref name="length"/> into <paramref name="target"/>, a
    /// new file, through the log's own handle (the log holds the file's lock), and forces the copy and its folder entry.
    /// </summary>
    internal static void CopyBytes(ILogStorage storage, string path, string target, long from, long length)
    {
        using (var side = File.OpenHandle(target, FileMode.CreateNew, FileAccess.Write))
        {
            var buffer = new byte[FileLogOptions.DefaultBufferSize];
            for (var offset = from; offset < length;)
            {
                var read = storage.Read(buffer.AsSpan(0, (int)Math.Min(buffer.Length, length - offset)), offset);
                if (read == 0)
                {
                    throw new IOException($"The log file '{path}' ended before its length while its tail was copied.");
                }

                RandomAccess.Write(side, buffer.AsSpan(0, read), offset - from);
                offset += read;
            }

            RandomAccess.FlushToDisk(side);
        }

        DurableFolder.Flush(Path.GetDirectoryName(Path.GetFullPath(target))!);
    }
}
