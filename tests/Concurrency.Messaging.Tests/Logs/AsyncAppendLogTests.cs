namespace Concurrency.Messaging.Tests.Logs;

/// <summary>What the asynchronous wrapper adds to the contract: appends that return at once, complete when durable, fail loudly.</summary>
public sealed class AsyncAppendLogTests : LogFolderTests
{
    [Fact]
    public async Task AppendAsync_ManyQueuedWithoutAwaiting_EachCompletesWithItsIndexInQueueOrder()
    {
        await using var log = AppendLog.Async(AppendLog.OpenFile(LogPath, new FileLogOptions { FlushPolicy = FileFlushPolicy.Fsync }));

        var appends = Enumerable.Range(0, 2_000).Select(i => log.AppendAsync(LogEntries.Create(0, i), TestContext.Current.CancellationToken).AsTask()).ToArray();
        var indexes = await Task.WhenAll(appends).DefaultTimeout();

        Assert.Equal(Enumerable.Range(0, 2_000).Select(i => (long)i), indexes);
        Assert.Equal(LogEntries.Create(0, 1_999), log.Get(1_999));
    }

    [Fact]
    public async Task AppendAsync_CallerReusesItsBuffer_LogKeepsWhatWasPassed()
    {
        await using var log = AppendLog.Async(AppendLog.InMemory());
        var buffer = LogEntries.Create(0, 0);

        var append = log.AppendAsync(buffer, TestContext.Current.CancellationToken).AsTask();
        buffer[0] = 0xFF;
        var index = await append.DefaultTimeout();

        Assert.Equal(LogEntries.Create(0, 0), log.Get(index));
    }

    [Fact]
    public async Task DisposeAsync_WithAppendsQueued_AppliesThemAllThenClosesTheInnerLog()
    {
        var path = LogPath;
        var log = AppendLog.Async(AppendLog.OpenFile(path));
        var appends = Enumerable.Range(0, 1_000).Select(i => log.AppendAsync(LogEntries.Create(0, i), TestContext.Current.CancellationToken).AsTask()).ToArray();

        await log.DisposeAsync().AsTask().DefaultTimeout();

        Assert.All(appends, a => Assert.True(a.IsCompletedSuccessfully));
        await Assert.ThrowsAsync<ObjectDisposedException>(async () => await log.AppendAsync(new byte[1], TestContext.Current.CancellationToken));
        using var reopened = AppendLog.OpenFile(path);
        Assert.Equal(1_000, reopened.Count);
    }

    [Fact]
    public async Task AppendAsync_InnerLogThrows_FailsThatAppendAndEveryLaterOne()
    {
        var inner = new FailingLog();
        await using var log = AppendLog.Async(inner);
        await log.AppendAsync(new byte[1], TestContext.Current.CancellationToken).AsTask().DefaultTimeout();

        inner.Fail();
        var failed = log.AppendAsync(new byte[2], TestContext.Current.CancellationToken).AsTask();

        await Assert.ThrowsAsync<IOException>(() => failed.DefaultTimeout());
        var later = await Assert.ThrowsAsync<InvalidOperationException>(async () => await log.AppendAsync(new byte[3], TestContext.Current.CancellationToken));
        Assert.IsType<IOException>(later.InnerException);
        Assert.Equal(1, log.Count);
    }

    [Fact]
    public async Task AppendAsync_TokenAlreadyCancelled_QueuesNothing()
    {
        await using var log = AppendLog.Async(AppendLog.InMemory());

        await Assert.ThrowsAnyAsync<OperationCanceledException>(async () => await log.AppendAsync(new byte[1], new CancellationToken(canceled: true)));
        log.Flush();

        Assert.Equal(0, log.Count);
    }

    [Fact]
    public async Task AppendAsync_TokenCancelledWhileQueued_EndsTheWaitAtOnceAndTheEntryIsStillAppended()
    {
        using var inner = new GatedLog();
        await using var log = AppendLog.Async(inner);
        var first = log.AppendAsync(new byte[1], TestContext.Current.CancellationToken).AsTask();
        inner.WaitUntilEntered();
        using var stop = new CancellationTokenSource();

        var second = log.AppendAsync(new byte[2], stop.Token).AsTask();
        await stop.CancelAsync();

        Assert.True(second.IsCanceled); // settled by the cancel itself, while the writer is still busy with the first
        inner.Open();
        Assert.Equal(0, await first.DefaultTimeout());
        log.Flush(); // returns once everything queued before it is applied
        Assert.Equal(2, log.Count);
        Assert.Equal(new byte[2], log.Get(1));
    }

    [Fact]
    public void Async_NullInner_ThrowsArgumentNull()
        => Assert.Throws<ArgumentNullException>(() => AppendLog.Async(null!));
}
