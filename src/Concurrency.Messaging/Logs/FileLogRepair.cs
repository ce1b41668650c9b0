using System.Globalization;

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
        FileLog.PrepareHeader(path, storage, create: false);
        var length = storage.Length;
        var records = new List<RecordLocation>();
        var scan = LogFileScan.Scan(storage, length, LogRecord.FileHeaderSize, records);
        if (scan.ValidEnd == length)
        {
            return new FileLogRepair(records.Count, 0, 0, null) { HeaderFile = headerFile };
        }

        var cutFile = CopyTail(storage, path, scan.ValidEnd, length);
        storage.SetLength(scan.ValidEnd);
        storage.Flush();
        return new FileLogRepair(records.Count, length - scan.ValidEnd, scan.RecordsAfter, cutFile) { HeaderFile = headerFile };
    }

    // A header that fails its check (not one of another version, whose checksum holds) in front of a record that checks
    // out is a damaged header, not another kind of file: a record's marker and checksum do not pass by chance. It is kept
    // in a side file, forced, and only then written over with a sound one. Returns the side file, or null when there was
    // nothing to rebuild (PrepareHeader then refuses what is not a log).
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

        FileLogStorage.FlushDirectory(Path.GetDirectoryName(Path.GetFullPath(target))!);
    }
}
