using System.Globalization;

namespace Concurrency.Messaging.Logs;

/// <summary>What <see cref="AppendLog.RepairFile(string)"/> did to a file log.</summary>
/// <param name="EntriesKept">The entries the log holds after the repair: every one before the first bad record.</param>
/// <param name="BytesCut">The bytes cut from the log, from the first bad record to the end (0 when the log was sound).</param>
/// <param name="RecordsCut">The records that checked out among the bytes cut; they are in <paramref name="CutFile"/>.</param>
/// <param name="CutFile">The side file that holds the bytes cut, byte for byte; <see langword="null"/> when nothing was cut.</param>
public sealed record FileLogRepair(long EntriesKept, long BytesCut, long RecordsCut, string? CutFile)
{
    /// <summary>
    /// Cuts the log at its first bad record (point in time, RocksDB's <c>kPointInTimeRecovery</c>): copies everything from
    /// there to the end into a side file and makes it durable, then cuts the log and forces the cut.
    /// </summary>
    internal static FileLogRepair Run(string path)
    {
        using var storage = FileLogStorage.Open(path);
        FileLog.PrepareHeader(path, storage, create: false);
        var length = storage.Length;
        var records = new List<RecordLocation>();
        var scan = LogFileScan.Scan(storage, length, LogRecord.FileHeaderSize, records);
        if (scan.ValidEnd == length)
        {
            return new FileLogRepair(records.Count, 0, 0, null);
        }

        var cutFile = path + ".cut-" + scan.ValidEnd.ToString(CultureInfo.InvariantCulture);
        using (var side = File.OpenHandle(cutFile, FileMode.CreateNew, FileAccess.Write))
        {
            var buffer = new byte[FileLogOptions.DefaultBufferSize];
            for (var offset = scan.ValidEnd; offset < length;)
            {
                var read = storage.Read(buffer.AsSpan(0, (int)Math.Min(buffer.Length, length - offset)), offset);
                if (read == 0)
                {
                    throw new IOException($"The log file '{path}' ended before its length while its tail was copied.");
                }

                RandomAccess.Write(side, buffer.AsSpan(0, read), offset - scan.ValidEnd);
                offset += read;
            }

            RandomAccess.FlushToDisk(side);
        }

        storage.SetLength(scan.ValidEnd);
        storage.Flush();
        return new FileLogRepair(records.Count, length - scan.ValidEnd, scan.RecordsAfter, cutFile);
    }
}
