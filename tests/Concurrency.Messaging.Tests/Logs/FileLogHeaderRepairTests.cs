namespace Concurrency.Messaging.Tests.Logs;

/// <summary>
/// A flipped bit in the file's 16-byte header: open refuses the file, and repair rebuilds the header when the records
/// behind it check out, keeping the old header in a side file. A file whose records do not check out is still refused.
/// </summary>
public sealed class FileLogHeaderRepairTests : LogFolderTests
{
    private const int FileHeaderSize = 16;

    [Theory]
    [InlineData(1)]  // the magic
    [InlineData(9)]  // the format version
    [InlineData(13)] // the header's checksum
    public void RepairFile_FlippedBitInTheHeader_RebuildsItKeepingTheOldOneInASideFile(int at)
    {
        AppendAndClose(10);
        var sound = File.ReadAllBytes(LogPath);
        var bytes = (byte[])sound.Clone();
        bytes[at] ^= 0x04;
        File.WriteAllBytes(LogPath, bytes);
        Assert.Throws<InvalidDataException>(OpenFileLog);

        var repair = AppendLog.RepairFile(LogPath);

        Assert.Equal(new FileLogRepair(10, 0, 0, null) { HeaderFile = repair.HeaderFile }, repair);
        Assert.NotNull(repair.HeaderFile);
        Assert.Equal(bytes[..FileHeaderSize], File.ReadAllBytes(repair.HeaderFile));
        Assert.Equal(sound, File.ReadAllBytes(LogPath));
        AssertFileLogHolds(10);
    }

    [Fact]
    public void RepairFile_BadHeaderAndNoRecordThatChecksOutBehindIt_RefusesAndChangesNothing()
    {
        AppendAndClose(3);
        var bytes = File.ReadAllBytes(LogPath);
        bytes[13] ^= 0x04;
        bytes[FileHeaderSize + 14] ^= 0x04;
        File.WriteAllBytes(LogPath, bytes);

        Assert.Throws<InvalidDataException>(() => AppendLog.RepairFile(LogPath));

        Assert.Equal(bytes, File.ReadAllBytes(LogPath));
        Assert.Single(Directory.GetFiles(Place));
    }
}
