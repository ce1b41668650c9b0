namespace Concurrency.Messaging.Tests.Logs;

/// <summary>
/// Opening cuts a bad tail only after keeping it in a side file, and says so: under Fsync the last record can be an entry
/// whose append returned (a flipped bit since), so a cut is never silent.
/// </summary>
public sealed class FileLogTailCutTests : LogFolderTests
{
    [Theory]
    [InlineData(FileFlushPolicy.Fsync)]
    [InlineData(FileFlushPolicy.WriteThrough)]
    [InlineData(FileFlushPolicy.Buffered)]
    public void OpenFile_FlippedBitInTheLastAcknowledgedRecord_KeepsItInASideFileAndReportsTheCut(FileFlushPolicy policy)
    {
        using (var log = Open(policy))
        {
            for (var i = 0; i < 10; i++)
            {
                log.Append(LogEntries.Create(0, i));
            }

            Assert.Null(log.TailCut);
        }

        var bytes = File.ReadAllBytes(LogPath);
        var lastRecord = bytes.Length - (12 + LogEntries.Create(0, 9).Length);
        bytes[^2] ^= 0x40;
        File.WriteAllBytes(LogPath, bytes);

        using var reopened = Open(policy);

        Assert.Equal(9, reopened.Count);
        var cut = Assert.IsType<FileLogRepair>(reopened.TailCut);
        Assert.Equal(9, cut.EntriesKept);
        Assert.Equal(bytes.Length - lastRecord, cut.BytesCut);
        Assert.Equal(0, cut.RecordsCut);
        Assert.NotNull(cut.CutFile);
        Assert.Equal(bytes[(int)lastRecord..], File.ReadAllBytes(cut.CutFile));
        Assert.Equal(lastRecord, new FileInfo(LogPath).Length);
    }

    [Fact]
    public void OpenFile_SameTailOffsetCutTwice_KeepsBothInSeparateSideFiles()
    {
        using (var log = Open(FileFlushPolicy.WriteThrough))
        {
            log.Append(LogEntries.Create(0, 0));
        }

        var sound = new FileInfo(LogPath).Length;
        File.AppendAllBytes(LogPath, [1, 2, 3]);
        string first;
        using (var log = Open(FileFlushPolicy.WriteThrough))
        {
            first = log.TailCut!.CutFile!;
        }

        File.AppendAllBytes(LogPath, [4, 5]);
        using var again = Open(FileFlushPolicy.WriteThrough);

        var second = again.TailCut!.CutFile!;
        Assert.NotEqual(first, second);
        Assert.Equal([1, 2, 3], File.ReadAllBytes(first));
        Assert.Equal([4, 5], File.ReadAllBytes(second));
        Assert.Equal(sound, new FileInfo(LogPath).Length);
    }

    [Fact]
    public void OpenFile_SoundLog_ReportsNoCutAndMakesNoSideFile()
    {
        using (var log = Open(FileFlushPolicy.Fsync))
        {
            log.Append(LogEntries.Create(0, 0));
        }

        using var reopened = Open(FileFlushPolicy.Fsync);

        Assert.Null(reopened.TailCut);
        Assert.Single(Directory.GetFiles(Place));
    }

    private IFileAppendLog Open(FileFlushPolicy policy)
        => AppendLog.OpenFile(LogPath, new FileLogOptions { FlushPolicy = policy, BufferSize = 4096 });
}
