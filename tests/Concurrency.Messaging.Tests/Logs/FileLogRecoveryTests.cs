using System.Buffers.Binary;
using System.Globalization;
using System.Text;

namespace Concurrency.Messaging.Tests.Logs;

/// <summary>
/// What opening a file log does with what it finds, and what a crash leaves. Only the tail a crash leaves is cut (a bad
/// record with nothing valid after it); a bad record with valid records after it, a file that is not a log, a corrupt header
/// and a log of the old format are refused and left byte for byte as they were; <see cref="AppendLog.RepairFile"/> cuts
/// corruption keeping what it cuts; <see cref="AppendLog.UpgradeFile"/> converts the old format; one log at a time has the
/// file. A process killed between append and close (the crash probe appends, then kills itself) leaves exactly the prefix
/// its policy promised.
/// </summary>
public sealed class FileLogRecoveryTests : LogFolderTests
{
    private const int FileHeaderSize = 16;
    private const int RecordHeaderSize = 12;

    // The crash probe's entries: 16 bytes each; its buffer is 4,096 bytes (see LogCrash in the probe).
    private const int ProbeRecordSize = RecordHeaderSize + 16;
    private const int ProbeBufferSize = 4096;
    private const int ProbeAppends = 1_000;

    [Fact]
    public void OpenFile_TornTailRecord_CutsItAndKeepsTheCompleteRecords()
    {
        AppendAndClose(10);
        var complete = new FileInfo(LogPath).Length;
        using (var file = File.OpenWrite(LogPath))
        {
            file.SetLength(complete - 3);
        }

        using var log = OpenFileLog();

        Assert.Equal(9, log.Count);
        Assert.Equal(LogEntries.Create(0, 8), log.Get(8));
        Assert.Equal(9, log.Append(LogEntries.Create(1, 9)));
        log.Close();
        using var reopened = OpenFileLog();
        Assert.Equal(10, reopened.Count);
        Assert.Equal(LogEntries.Create(1, 9), reopened.Get(9));
    }

    [Fact]
    public void OpenFile_TornHeader_CutsToTheLastCompleteRecord()
    {
        AppendAndClose(3);
        var complete = new FileInfo(LogPath).Length;
        File.AppendAllBytes(LogPath, [0xD3, 0x4C, 0x47, 0x9B, 5, 0, 0]);

        using var log = OpenFileLog();

        Assert.Equal(3, log.Count);
        Assert.Equal(complete, new FileInfo(LogPath).Length);
    }

    [Fact]
    public void OpenFile_LastRecordFailsItsChecksum_CutsIt()
    {
        AppendAndClose(10);
        var bytes = File.ReadAllBytes(LogPath);
        bytes[^2] ^= 0x40;
        File.WriteAllBytes(LogPath, bytes);

        using var log = OpenFileLog();

        Assert.Equal(9, log.Count);
    }

    [Fact]
    public void OpenFile_ZeroFilledTail_IsNotTakenForEntriesAndIsCut()
    {
        AppendAndClose(2);
        var complete = new FileInfo(LogPath).Length;
        File.AppendAllBytes(LogPath, new byte[64]);

        using var log = OpenFileLog();

        Assert.Equal(2, log.Count);
        Assert.Equal(complete, new FileInfo(LogPath).Length);
    }

    [Theory]
    [InlineData(0x40, RecordHeaderSize + 3)] // a flipped bit in the 11th entry's bytes
    [InlineData(0x01, 4)]                    // a flipped bit in its length: its end, and so every later boundary, lost
    [InlineData(0x40, 7)]                    // a flipped high bit in its length: it claims to run past the file's end
    [InlineData(0x10, 0)]                    // a flipped bit in its marker
    public void OpenFile_BadRecordWithValidRecordsAfterIt_RefusesAndChangesNothing(byte flip, int at)
    {
        AppendAndClose(1_000, SameSizeEntry);
        var bytes = File.ReadAllBytes(LogPath);
        var eleventh = FileHeaderSize + (10 * SameSizeRecord);
        bytes[eleventh + at] ^= flip;
        File.WriteAllBytes(LogPath, bytes);

        var refused = Assert.Throws<LogCorruptedException>(OpenFileLog);

        Assert.Equal(LogPath, refused.FilePath);
        Assert.Equal(eleventh, refused.Offset);
        Assert.Equal(10, refused.EntriesBefore);
        Assert.Equal(989, refused.RecordsAfter);
        Assert.Contains(eleventh.ToString(CultureInfo.InvariantCulture), refused.Message, StringComparison.Ordinal);
        Assert.Contains("RepairFile", refused.Message, StringComparison.Ordinal);
        Assert.Equal(bytes, File.ReadAllBytes(LogPath));
    }

    [Fact]
    public void RepairFile_CorruptionInTheMiddle_CutsThereKeepingTheCutBytesInASideFile()
    {
        AppendAndClose(1_000, SameSizeEntry);
        var bytes = File.ReadAllBytes(LogPath);
        var eleventh = FileHeaderSize + (10 * SameSizeRecord);
        bytes[eleventh + RecordHeaderSize + 3] ^= 0x40;
        File.WriteAllBytes(LogPath, bytes);

        var repair = AppendLog.RepairFile(LogPath);

        Assert.Equal(10, repair.EntriesKept);
        Assert.Equal(989, repair.RecordsCut);
        Assert.Equal(bytes.Length - eleventh, repair.BytesCut);
        Assert.Equal(bytes[eleventh..], File.ReadAllBytes(repair.CutFile!));
        using var log = OpenFileLog();
        Assert.Equal(10, log.Count);
        Assert.Equal(SameSizeEntry(9), log.Get(9));
        Assert.Equal(10, log.Append(SameSizeEntry(10)));
    }

    [Fact]
    public void RepairFile_SoundLog_ChangesNothing()
    {
        AppendAndClose(5);
        var bytes = File.ReadAllBytes(LogPath);

        var repair = AppendLog.RepairFile(LogPath);

        Assert.Equal(new FileLogRepair(5, 0, 0, null), repair);
        Assert.Equal(bytes, File.ReadAllBytes(LogPath));
    }

    [Fact]
    public void RepairFile_BadArguments_Throw()
    {
        Assert.Throws<ArgumentNullException>(() => AppendLog.RepairFile(null!));
        Assert.Throws<ArgumentException>(() => AppendLog.RepairFile(""));
        Assert.Throws<FileNotFoundException>(() => AppendLog.RepairFile(LogPath));
        Assert.False(File.Exists(LogPath));
    }

    [Fact]
    public void OpenFile_TextFile_RefusesAndChangesNothing()
    {
        var text = string.Concat(Enumerable.Repeat("a user's notes, opened as a log by mistake\n", 25));

        AssertOpenRefusesAndChangesNothing(Encoding.UTF8.GetBytes(text), "not a file log");
    }

    [Fact]
    public void OpenFile_CorruptHeader_RefusesAndChangesNothing()
    {
        AppendAndClose(5);
        var bytes = File.ReadAllBytes(LogPath);
        bytes[9] ^= 0x02; // the format version's bytes; the header's checksum no longer agrees

        AssertOpenRefusesAndChangesNothing(bytes, "checksum");
    }

    [Fact]
    public void OpenFile_StartOfAHeaderOnly_AsACrashAtCreationLeaves_OpensEmpty()
    {
        AppendAndClose(0);
        var header = File.ReadAllBytes(LogPath);
        Assert.Equal(FileHeaderSize, header.Length);
        File.WriteAllBytes(LogPath, header[..5]);

        using (var log = OpenFileLog())
        {
            Assert.Equal(0, log.Count);
        }

        Assert.Equal(header, File.ReadAllBytes(LogPath));
    }

    [Fact]
    public void OpenFile_FormatZeroLog_RefusesNamingTheUpgrade_ThenUpgradeFileConvertsIt()
    {
        var legacy = LogEntries.FormatZeroLog(20);
        AssertOpenRefusesAndChangesNothing(legacy, "AppendLog.UpgradeFile");

        Assert.Equal(new FileLogRepair(20, 0, 0, null), AppendLog.UpgradeFile(LogPath));

        Assert.Equal(legacy, File.ReadAllBytes(LogPath + ".v0"));
        AssertFileLogHolds(20);
    }

    [Fact]
    public void UpgradeFile_FormatZeroLogWithATornTail_CarriesTheGoodRecordsAndKeepsTheRestInASideFile()
    {
        var legacy = LogEntries.FormatZeroLog(20);
        var torn = legacy[..^3];
        File.WriteAllBytes(LogPath, torn);
        var lastRecord = legacy.Length - (8 + LogEntries.Create(0, 19).Length);

        var upgrade = AppendLog.UpgradeFile(LogPath);

        Assert.Equal(19, upgrade.EntriesKept);
        Assert.Equal(torn.Length - lastRecord, upgrade.BytesCut);
        Assert.Equal(torn[lastRecord..], File.ReadAllBytes(upgrade.CutFile!));
        Assert.Equal(torn, File.ReadAllBytes(LogPath + ".v0"));
        using var log = OpenFileLog();
        Assert.Equal(19, log.Count);
    }

    [Fact]
    public void UpgradeFile_CurrentFormat_RefusesAndChangesNothing()
    {
        AppendAndClose(3);
        var bytes = File.ReadAllBytes(LogPath);

        Assert.Throws<InvalidDataException>(() => AppendLog.UpgradeFile(LogPath));

        Assert.Equal(bytes, File.ReadAllBytes(LogPath));
        Assert.False(File.Exists(LogPath + ".v0"));
    }

    [Fact]
    public void OpenFile_SameFileTwiceInOneProcess_SecondIsRefused()
    {
        using var first = OpenFileLog();

        var refused = Assert.Throws<IOException>(OpenFileLog);

        Assert.Contains("open in another log", refused.Message, StringComparison.Ordinal);
        first.Append(LogEntries.Create(0, 0));
        Assert.Equal(1, first.Count);
    }

    [Fact]
    public async Task OpenFile_FileOpenInAnotherProcess_IsRefusedThere()
    {
        using (var held = OpenFileLog())
        {
            held.Append(LogEntries.Create(0, 0));
            var (exitCode, output, errors) = await CrashProbeProcess.RunAsync("open", LogPath);

            Assert.True(exitCode == 4, $"the other process was not refused (exit code {exitCode}): {output} {errors}");
            Assert.Contains("open in another log", output, StringComparison.Ordinal);
        }

        var (after, opened, _) = await CrashProbeProcess.RunAsync("open", LogPath);
        Assert.Equal(0, after);
        Assert.Contains("opened with 1 entries", opened, StringComparison.Ordinal);
    }

    [Fact]
    public void Append_EntryLargerThanTheBuffer_WrittenOnItsOwnAndReadBack()
    {
        var large = Enumerable.Range(0, 10_000).Select(i => (byte)i).ToArray();
        using (var log = OpenFileLog())
        {
            log.Append(LogEntries.Create(0, 0));
            Assert.Equal(1, log.Append(large));
            log.Append(LogEntries.Create(0, 2));
            Assert.Equal(large, log.Get(1));
        }

        using var reopened = OpenFileLog();
        Assert.Equal(3, reopened.Count);
        Assert.Equal(large, reopened.Get(1));
        Assert.Equal(LogEntries.Create(0, 2), reopened.Get(2));
    }

    [Fact]
    public void OpenFile_BadArguments_Throw()
    {
        Assert.Throws<ArgumentNullException>(() => AppendLog.OpenFile(null!));
        Assert.Throws<ArgumentException>(() => AppendLog.OpenFile(""));
        Assert.Throws<ArgumentOutOfRangeException>(() => AppendLog.OpenFile(LogPath, new FileLogOptions { BufferSize = 8 }));
        Assert.Throws<ArgumentOutOfRangeException>(() => AppendLog.OpenFile(LogPath, new FileLogOptions { FlushPolicy = (FileFlushPolicy)42 }));
    }

    /// <summary>
    /// Kills the probe after its appends and reopens: WriteThrough and Fsync keep every append that returned; Buffered keeps
    /// exactly the buffers it had written (146 records of 28 bytes fill 4,096), none of the one still buffered. Then the same
    /// file with corruption injected: at the tail it is cut, in the middle and in the header it is refused.
    /// </summary>
    [Theory]
    [InlineData(FileFlushPolicy.WriteThrough, ProbeAppends)]
    [InlineData(FileFlushPolicy.Fsync, ProbeAppends)]
    [InlineData(FileFlushPolicy.Buffered, ProbeAppends / (ProbeBufferSize / ProbeRecordSize) * (ProbeBufferSize / ProbeRecordSize))]
    public async Task Append_ProcessKilledBeforeClose_KeepsExactlyThePrefixItsPolicyPromised(FileFlushPolicy policy, int promised)
    {
        var (exitCode, output, errors) = await CrashProbeProcess.RunAsync("log", LogPath, policy.ToString(), ProbeAppends.ToString(CultureInfo.InvariantCulture));
        Assert.Contains($"appended {ProbeAppends}", output, StringComparison.Ordinal);
        Assert.True(exitCode is not 0 and not 3, $"the probe was not killed (exit code {exitCode}): {errors}");

        Assert.Equal(promised, CheckProbeEntries());
        var killed = File.ReadAllBytes(LogPath);
        Assert.Equal(FileHeaderSize + ((long)promised * ProbeRecordSize), killed.Length);

        var tail = (byte[])killed.Clone();
        tail[^3] ^= 0x08;
        File.WriteAllBytes(LogPath, tail);
        Assert.Equal(promised - 1, CheckProbeEntries());

        var middle = (byte[])killed.Clone();
        middle[FileHeaderSize + (promised / 2 * ProbeRecordSize) + RecordHeaderSize] ^= 0x08;
        File.WriteAllBytes(LogPath, middle);
        var refused = Assert.Throws<LogCorruptedException>(OpenFileLog);
        Assert.Equal(promised - (promised / 2) - 1, refused.RecordsAfter);

        var header = (byte[])killed.Clone();
        header[1] ^= 0x08;
        AssertOpenRefusesAndChangesNothing(header);
    }

    // The crash probe's entries (its index, then 8 bytes of 0xA5), each checked; returns how many the log holds.
    private long CheckProbeEntries()
    {
        using var log = OpenFileLog();
        for (var i = 0; i < log.Count; i++)
        {
            var entry = log.Get(i);
            Assert.Equal(i, BitConverter.ToInt64(entry));
            Assert.All(entry[8..], b => Assert.Equal(0xA5, b));
        }

        return log.Count;
    }

    private const int SameSizeRecord = RecordHeaderSize + 44;

    private static byte[] SameSizeEntry(int i)
    {
        var entry = new byte[SameSizeRecord - RecordHeaderSize];
        BinaryPrimitives.WriteInt32LittleEndian(entry, i);
        entry.AsSpan(4).Fill((byte)i);
        return entry;
    }

    /// <summary>
    /// Writes <paramref name="file"/> as the log's file: open refuses it (saying <paramref name="why"/>, where given) and
    /// leaves it byte for byte as written.
    /// </summary>
    private void AssertOpenRefusesAndChangesNothing(byte[] file, string? why = null)
    {
        File.WriteAllBytes(LogPath, file);

        var refused = Assert.Throws<InvalidDataException>(OpenFileLog);

        if (why is not null)
        {
            Assert.Contains(why, refused.Message, StringComparison.Ordinal);
        }

        Assert.Equal(file, File.ReadAllBytes(LogPath));
    }
}
