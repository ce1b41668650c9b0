namespace Concurrency.Messaging.Tests.Races;

/// <summary>
/// A PostAsync that waits for room must wait asynchronously: parking a thread-pool thread per waiting post (as a
/// Task.Run around the blocking Post does) starves the pool once enough posts wait, and everything else queued behind them
/// waits for the pool to inject threads, about two a second.
/// </summary>
public sealed class PoolThreadTests
{
    private const int WaitingPosts = 64;

    /// <summary>Generous: a pool item runs within milliseconds when no thread is held, and tens of seconds behind 64 held ones.</summary>
    private static readonly TimeSpan PoolItemRunsWithin = TimeSpan.FromSeconds(10);

    [Theory]
    [InlineData("BlockingCollection-4")]
    [InlineData("Channel-4")]
    public async Task PostAsync_ManyWaitingOnFullBroadcast_HoldNoPoolThreads(string name)
    {
        await using var held = await HeldFullPipe.FillAsync(name);
        var (pipe, next) = (held.Pipe, held.Next);

        var waiting = Enumerable.Range(0, WaitingPosts)
            .Select(i => pipe.PostAsync(next + i, TestContext.Current.CancellationToken).AsTask())
            .ToArray();
        Assert.All(waiting, post => Assert.False(post.IsCompleted));

        using var ran = new ManualResetEventSlim(false);
        ThreadPool.UnsafeQueueUserWorkItem(static ran => ran.Set(), ran, preferLocal: false);
        var poolResponsive = ran.Wait(PoolItemRunsWithin, TestContext.Current.CancellationToken);

        held.Release();
        await Task.WhenAll(waiting).DefaultTimeout();
        pipe.Complete();
        await pipe.Completion.DefaultTimeout();

        Assert.True(poolResponsive, $"a thread-pool work item waited more than {PoolItemRunsWithin.TotalSeconds:0} s behind {WaitingPosts} waiting posts");
        Assert.Equal(2 * (next + WaitingPosts), held.Handled);
    }
}
