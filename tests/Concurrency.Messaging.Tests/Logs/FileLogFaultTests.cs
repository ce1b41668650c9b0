namespace Concurrency.Messaging.Tests.Logs;

/// <summary>
/// A disk that fails under the log: a write that fails (the disk is full), a write cut short, an fsync that fails. The log
/// is then faulted for good: the failed entry never appears, in the log or in the file after a reopen; every later append
/// and flush fails with the first error inside; nothing is retried; Count and Get serve what the policy had made good.
/// </summary>
public sealed class FileLogFaultTests : LogFolderTests
{
    [Theory]
    [InlineData(FileFlushPolicy.WriteThrough, 0)]
    [InlineData(FileFlushPolicy.WriteThrough, 7)]
    [InlineData(FileFlushPolicy.Fsync, 0)]
    [InlineData(FileFlushPolicy.Fsync, 7)]
    public void Append_WriteFails_FaultsForGoodAndTheEntryNeverAppears(FileFlushPolicy policy, int bytesWrittenFirst)
    {
        var log = Open(policy, out var storage);
        AppendEntries(log, 3);
        var full = TestLogStorage.DiskFull();
        storage.FailWrites(full, bytesWrittenFirst);

        var failed = Assert.Throws<IOException>(() => log.Append(LogEntries.Create(0, 3)));

        Assert.Same(full, failed);
        AssertFaulted(log, full, count: 3);
        Assert.Equal(EndOf(3), new FileInfo(LogPath).Length); // the short write was cut back
        CloseAndAssertFileLogHolds(log, 3);
    }

    [Fact]
    public void AppendBatch_WriteFailsHalfwayThroughTheBatch_NoneOfTheBatchAppears()
    {
        var log = Open(FileFlushPolicy.WriteThrough, out var storage);
        AppendEntries(log, 2);
        var full = TestLogStorage.DiskFull();
        storage.FailWrites(full, bytesFirst: 4096 + 50); // a batch larger than the buffer: the first buffer-full lands, the second is cut short

        var batch = Enumerable.Range(2, 400).Select(i => (ReadOnlyMemory<byte>)LogEntries.Create(0, i)).ToList();
        Assert.Throws<IOException>(() => log.AppendBatch(batch));

        AssertFaulted(log, full, count: 2);
        CloseAndAssertFileLogHolds(log, 2);
    }

    /// <summary>
    /// A group commit that begins while a batch larger than the buffer is half written must not publish that half: when the
    /// batch's next write fails, none of it may be in the log.
    /// </summary>
    [Fact]
    public async Task AppendBatch_FsyncFromAnotherThreadBetweenTheBatchsWrites_PublishesNoneOfTheBatch()
    {
        var log = Open(FileFlushPolicy.Fsync, out var storage);
        AppendEntries(log, 2);
        using var gate = new ManualResetEventSlim();
        storage.HoldNextFlush(gate);
        var held = Task.Factory.StartNew(() => log.Append(LogEntries.Create(0, 2)), TestContext.Current.CancellationToken, TaskCreationOptions.LongRunning, TaskScheduler.Default);
        storage.WaitForHeldFlush();
        var waiting = Task.Factory.StartNew(() => log.Append(LogEntries.Create(0, 3)), TestContext.Current.CancellationToken, TaskCreationOptions.LongRunning, TaskScheduler.Default);
        await TestTimeouts.WaitUntilAsync(() => log.SyncableCount == 4);
        var flushes = storage.Flushes;
        storage.BeforeFailingWrite = () =>
        {
            // The batch's first buffer-full is written; now the held fsync ends and the waiting append's fsync begins.
            gate.Set();
            Assert.True(SpinWait.SpinUntil(() => storage.Flushes > flushes, TestTimeouts.Default), "the waiting append never began its fsync");
        };
        storage.FailWrites(TestLogStorage.DiskFull(), bytesFirst: 4096 + 50);

        var batch = Enumerable.Range(4, 400).Select(i => (ReadOnlyMemory<byte>)LogEntries.Create(0, i)).ToList();
        Assert.Throws<IOException>(() => log.AppendBatch(batch));
        await Task.WhenAll(held, waiting).DefaultTimeout();

        Assert.Equal(4, log.Count);
        CloseAndAssertFileLogHolds(log, 4);
    }

    [Fact]
    public void Append_FsyncFails_FaultsForGoodNeverRetriesAndTheEntryIsCutFromTheFile()
    {
        var log = Open(FileFlushPolicy.Fsync, out var storage);
        AppendEntries(log, 3);
        var broken = new IOException("Input/output error", 5);
        storage.FailFlushes(broken);
        var flushes = storage.Flushes;

        var failed = Assert.Throws<IOException>(() => log.Append(LogEntries.Create(0, 3)));

        Assert.Same(broken, failed);
        var afterFault = storage.Flushes; // the failed fsync, and the one that tries to force the cut back
        Assert.InRange(afterFault, flushes + 1, flushes + 2);
        AssertFaulted(log, broken, count: 3);
        Assert.Equal(afterFault, storage.Flushes); // no append or flush after the fault reached the disk again
        Assert.Equal(EndOf(3), new FileInfo(LogPath).Length);
        CloseAndAssertFileLogHolds(log, 3);
    }

    [Theory]
    [InlineData(FileFlushPolicy.WriteThrough)]
    [InlineData(FileFlushPolicy.Buffered)]
    public void Flush_FsyncFails_FaultsAndKeepsWhatWasWritten(FileFlushPolicy policy)
    {
        var log = Open(policy, out var storage);
        AppendEntries(log, 3);
        var broken = new IOException("Input/output error", 5);
        storage.FailFlushes(broken);

        var failed = Assert.Throws<IOException>(log.Flush);

        Assert.Same(broken, failed);
        AssertFaulted(log, broken, count: 3);
        CloseAndAssertFileLogHolds(log, 3);
    }

    [Fact]
    public void Append_BufferedWriteFailsWhenTheBufferFills_CountFallsToWhatReachedTheFile()
    {
        var log = Open(FileFlushPolicy.Buffered, out var storage);
        var entry = new byte[100 - 12]; // 40 records fill the 4,096-byte buffer
        for (var i = 0; i < 40; i++)
        {
            log.Append(entry);
        }

        Assert.Equal(40, log.Count);
        var full = TestLogStorage.DiskFull();
        storage.FailWrites(full);

        Assert.Throws<IOException>(() => log.Append(entry));

        AssertFaulted(log, full, count: 0);
        CloseAndAssertFileLogHolds(log, 0);
    }

    [Fact]
    public void Append_WriteAndCutBackBothFail_ReopenCutsTheTornRecord()
    {
        var log = Open(FileFlushPolicy.WriteThrough, out var storage);
        AppendEntries(log, 3);
        storage.FailCuts(new IOException("Input/output error", 5));
        storage.FailWrites(TestLogStorage.DiskFull(), bytesFirst: 7);

        Assert.Throws<IOException>(() => log.Append(LogEntries.Create(0, 3)));

        Assert.Equal(EndOf(3) + 7, new FileInfo(LogPath).Length);
        CloseAndAssertFileLogHolds(log, 3);
    }

    [Fact]
    public void Close_Faulted_ReleasesTheFileWithoutWriting()
    {
        var log = Open(FileFlushPolicy.Buffered, out var storage);
        AppendEntries(log, 3);
        log.Flush();
        storage.FailWrites(TestLogStorage.DiskFull());
        var entry = new byte[5000]; // larger than the buffer: written at once, and fails
        Assert.Throws<IOException>(() => log.Append(entry));
        var writes = storage.Writes;

        log.Close();

        Assert.Equal(writes, storage.Writes);
        Assert.Throws<ObjectDisposedException>(() => log.Count);
        AssertFileLogHolds(3);
    }

    private static void AssertFaulted(FileLog log, IOException first, long count)
    {
        Assert.Equal(count, log.Count);
        for (var i = 0; i < count; i++)
        {
            Assert.Equal((0, i), LogEntries.Read(log.Get(i)));
        }

        Assert.Throws<ArgumentOutOfRangeException>(() => log.Get(count));
        var later = Assert.Throws<IOException>(() => log.Append(LogEntries.Create(0, 99)));
        Assert.Same(first, later.InnerException);
        Assert.Contains("failed", later.Message, StringComparison.Ordinal);
        Assert.Same(first, Assert.Throws<IOException>(() => log.AppendBatch([new byte[3]])).InnerException);
        Assert.Same(first, Assert.Throws<IOException>(log.Flush).InnerException);
        Assert.Equal(count, log.Count);
    }

    private static long EndOf(int entries)
        => 16 + Enumerable.Range(0, entries).Sum(i => 12L + LogEntries.Create(0, i).Length);

    private static void AppendEntries(FileLog log, int count)
    {
        for (var i = 0; i < count; i++)
        {
            Assert.Equal(i, log.Append(LogEntries.Create(0, i)));
        }
    }

    /// <summary>Closes <paramref name="log"/>, then asserts <see cref="LogFolderTests.AssertFileLogHolds"/>: what it kept is what the file holds.</summary>
    private void CloseAndAssertFileLogHolds(FileLog log, int count)
    {
        log.Close();
        AssertFileLogHolds(count);
    }

    private FileLog Open(FileFlushPolicy policy, out TestLogStorage storage)
        => TestLogStorage.OpenLog(LogPath, policy, realFlush: false, out storage);
}
