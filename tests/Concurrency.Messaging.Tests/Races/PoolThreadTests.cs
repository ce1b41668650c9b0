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
        var (kind, options) = RaceKinds.Parse(name);
        using var release = new ManualResetEventSlim(false);
        using var holding = new CountdownEvent(2);
        var handled = 0L;
        void Hold(long message)
        {
            if (message == 0)
            {
                holding.Signal();
                Assert.True(release.Wait(TestTimeouts.Default));
            }

            Interlocked.Increment(ref handled);
        }

        await using var pipe = Pipe.Create<long>(kind, [Hold, Hold], options);
        pipe.Post(0, TestContext.Current.CancellationToken);
        Assert.True(holding.Wait(TestTimeouts.Default, TestContext.Current.CancellationToken));
        var next = 1L;
        while (pipe.TryPost(next))
        {
            next++;
        }

        var waiting = Enumerable.Range(0, WaitingPosts)
            .Select(i => pipe.PostAsync(next + i, TestContext.Current.CancellationToken).AsTask())
            .ToArray();
        Assert.All(waiting, post => Assert.False(post.IsCompleted));

        using var ran = new ManualResetEventSlim(false);
        ThreadPool.UnsafeQueueUserWorkItem(static ran => ran.Set(), ran, preferLocal: false);
        var poolResponsive = ran.Wait(PoolItemRunsWithin, TestContext.Current.CancellationToken);

        release.Set();
        await Task.WhenAll(waiting).DefaultTimeout();
        pipe.Complete();
        await pipe.Completion.DefaultTimeout();

        Assert.True(poolResponsive, $"a thread-pool work item waited more than {PoolItemRunsWithin.TotalSeconds:0} s behind {WaitingPosts} waiting posts");
        Assert.Equal(2 * (next + WaitingPosts), Interlocked.Read(ref handled));
    }
}
