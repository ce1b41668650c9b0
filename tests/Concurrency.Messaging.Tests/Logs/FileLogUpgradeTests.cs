namespace Concurrency.Messaging.Tests.Logs;

/// <summary>
/// The upgrade holds the log's lock until the new file is renamed over the path: a log that opened the original between
/// the copy and the rename would append to a file the rename then replaces, and its appends would be lost.
/// </summary>
public sealed class FileLogUpgradeTests : LogFolderTests
{
    [Fact]
    public void UpgradeFile_AnotherOpenJustBeforeTheRename_IsRefusedAsTheFileIsStillLocked()
    {
        File.WriteAllBytes(LogPath, LogEntries.FormatZeroLog(3));
        Exception? opened = null;

        FileLogUpgrade.Run(LogPath, beforeRename: () => opened = Record.Exception(() => AppendLog.OpenFile(LogPath).Dispose()));

        var refused = Assert.IsType<IOException>(opened);
        Assert.Contains("open in another log", refused.Message, StringComparison.Ordinal);
        using var log = AppendLog.OpenFile(LogPath);
        Assert.Equal(3, log.Count);
    }
}
