using Concurrency.Messaging.RocksDb;

namespace Concurrency.Messaging.Tests.Logs;

/// <summary>RocksDB is a native library: these show it loads on this machine and that its options do what the log says.</summary>
public sealed class RocksDbNativeLibraryTests : LogFolderTests
{
    [Fact]
    public void Open_OnThisMachine_LoadsTheNativeLibraryAndRoundTripsAnEntry()
    {
        using var log = RocksDbAppendLog.Open(Path.Combine(Place, "store"));

        var index = log.Append([1, 2, 3]);

        Assert.Equal([1, 2, 3], log.Get(index));
    }

    [Fact]
    public void Append_FsyncPolicyAndFlush_EntriesSurviveReopen()
    {
        var path = Path.Combine(Place, "store");
        using (var log = RocksDbAppendLog.Open(path, FileFlushPolicy.Fsync))
        {
            log.AppendBatch([LogEntries.Create(0, 0), LogEntries.Create(0, 1)]);
            log.Append(LogEntries.Create(0, 2));
            log.Flush();
        }

        using var reopened = RocksDbAppendLog.Open(path);
        Assert.Equal(3, reopened.Count);
        Assert.Equal(LogEntries.Create(0, 2), reopened.Get(2));
    }

    [Fact]
    public void Open_BadArguments_Throw()
    {
        Assert.Throws<ArgumentNullException>(() => RocksDbAppendLog.Open(null!));
        Assert.Throws<ArgumentException>(() => RocksDbAppendLog.Open(""));
        Assert.Throws<ArgumentOutOfRangeException>(() => RocksDbAppendLog.Open(Place, (FileFlushPolicy)42));
    }
}
