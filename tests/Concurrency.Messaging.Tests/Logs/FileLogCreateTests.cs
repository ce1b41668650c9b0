namespace Concurrency.Messaging.Tests.Logs;

/// <summary>
/// A new log forces its folder entry as well as its header: without it a power loss can leave the folder without the file,
/// and with it every entry fsynced into it.
/// </summary>
public sealed class FileLogCreateTests : LogFolderTests
{
    [Fact]
    public void Open_NewFile_ForcesItsFolderEntryOnce()
    {
        using (TestLogStorage.OpenLog(LogPath, FileFlushPolicy.Fsync, realFlush: true, out var created))
        {
            Assert.Equal(1, created.FolderFlushes);
        }

        using (TestLogStorage.OpenLog(LogPath, FileFlushPolicy.Fsync, realFlush: true, out var reopened))
        {
            Assert.Equal(0, reopened.FolderFlushes);
        }
    }
}
