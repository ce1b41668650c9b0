namespace Concurrency.Messaging.Tests.Logs;

/// <summary>
/// What each flush policy asks of the disk, counted at the storage seam: an fsync per append (or one per batch, or one for
/// several threads' appends: group commit) under Fsync, none under the others until Flush, and writes as the policy says.
/// </summary>
public sealed class FileLogFlushTests : LogFolderTests
{
    [Theory]
    [InlineData(FileFlushPolicy.Fsync)]        // an fsync per append, before it returns
    [InlineData(FileFlushPolicy.WriteThrough)] // a write per append
    public void Append_FsyncOrWriteThrough_OneFsyncOrOneWritePerAppend(FileFlushPolicy policy)
    {
        using var log = Open(policy, out var storage);
        int Counted() => policy == FileFlushPolicy.Fsync ? storage.Flushes : storage.Writes;
        var before = Counted();

        for (var i = 0; i < 10; i++)
        {
            log.Append(LogEntries.Create(0, i));
            Assert.Equal(before + i + 1, Counted());
        }
    }

    [Fact]
    public void AppendBatch_Fsync_OneFsyncForTheWholeBatch()
    {
        using var log = Open(FileFlushPolicy.Fsync, out var storage);
        var before = storage.Flushes;

        log.AppendBatch(Enumerable.Range(0, 100).Select(i => (ReadOnlyMemory<byte>)LogEntries.Create(0, i)).ToList());

        Assert.Equal(before + 1, storage.Flushes);
        Assert.Equal(100, log.Count);
    }

    [Fact]
    public async Task Append_FsyncFromSeveralThreadsDuringAnFsync_OneMoreFsyncServesThemAll()
    {
        using var log = Open(FileFlushPolicy.Fsync, out var storage);
        var before = storage.Flushes;
        using var gate = new ManualResetEventSlim();
        storage.HoldNextFlush(gate);

        var first = Task.Factory.StartNew(() => log.Append(LogEntries.Create(0, 0)), TestContext.Current.CancellationToken, TaskCreationOptions.LongRunning, TaskScheduler.Default);
        storage.WaitForHeldFlush();
        var others = Enumerable.Range(1, 4)
            .Select(writer => Task.Factory.StartNew(() => log.Append(LogEntries.Create(writer, 0)), TestContext.Current.CancellationToken, TaskCreationOptions.LongRunning, TaskScheduler.Default))
            .ToArray();
        await TestTimeouts.WaitUntilAsync(() => log.SyncableCount == 5);
        gate.Set();
        await Task.WhenAll(others.Append(first)).DefaultTimeout();

        Assert.Equal(before + 2, storage.Flushes);
        Assert.Equal(5, log.Count);
    }

    [Theory]
    [InlineData(FileFlushPolicy.WriteThrough)]
    [InlineData(FileFlushPolicy.Buffered)]
    public void Append_WithoutFsyncPolicy_NoFsyncUntilFlushThenOne(FileFlushPolicy policy)
    {
        using var log = Open(policy, out var storage);
        var before = storage.Flushes;

        for (var i = 0; i < 100; i++)
        {
            log.Append(LogEntries.Create(0, i));
        }

        Assert.Equal(before, storage.Flushes);
        log.Flush();
        Assert.Equal(before + 1, storage.Flushes);
        log.Flush();
        Assert.Equal(before + 1, storage.Flushes); // nothing new to force
    }

    [Fact]
    public void Append_Buffered_WritesOnlyWhenTheBufferFillsOrOnFlush()
    {
        using var log = Open(FileFlushPolicy.Buffered, out var storage);
        var before = storage.Writes;
        var entry = new byte[100 - 12]; // a 100-byte record: 40 fill the 4,096-byte buffer

        for (var i = 0; i < 40; i++)
        {
            log.Append(entry);
        }

        Assert.Equal(before, storage.Writes);
        log.Append(entry);
        Assert.Equal(before + 1, storage.Writes);
        log.Flush();
        Assert.Equal(before + 2, storage.Writes);
    }

    [Fact]
    public void Close_Fsync_NothingLeftToForce_NoFsync()
    {
        var log = Open(FileFlushPolicy.Fsync, out var storage);
        log.Append(LogEntries.Create(0, 0));
        var before = storage.Flushes;

        log.Close();

        Assert.Equal(before, storage.Flushes);
    }

    private FileLog Open(FileFlushPolicy policy, out TestLogStorage storage)
        => TestLogStorage.OpenLog(LogPath, policy, realFlush: true, out storage);
}
