namespace Concurrency.Messaging.Tests.Workers;

/// <summary>
/// Retirement on a fake clock. A timer tick runs inside <see cref="FakeTimeProvider.Advance"/>, so the choice of a worker to
/// retire is made, and counted in <see cref="WorkerPoolMetrics.WorkersRetired"/>, before Advance returns; only the
/// worker's exit is awaited.
/// </summary>
public sealed class WorkerRetirementTests
{
    private static readonly TimeSpan Second = TimeSpan.FromSeconds(1);

    [Fact]
    public async Task LeakyBucket_AfterTheDelay_RetiresOneWorkerPerInterval()
    {
        var time = new FakeTimeProvider();
        await using var pool = WorkerPool.Create(new WorkerPoolOptions { TimeProvider = time });
        pool.Grow(4);

        for (var second = 1; second < 10; second++)
        {
            time.Advance(Second);
            Assert.Equal(0, pool.Metrics.WorkersRetired);
        }

        for (var retired = 1; retired <= 4; retired++)
        {
            time.Advance(Second);
            Assert.Equal(retired, pool.Metrics.WorkersRetired);
            Assert.Equal(4 - retired, pool.WaitAllParked().WorkersAlive);
        }

        time.Advance(TimeSpan.FromSeconds(5));
        Assert.Equal(4, pool.Metrics.WorkersRetired);
    }

    [Fact]
    public async Task LeakyBucket_WorkerCreatedWithinTheDelay_RetiresNoneUntilTheDelayHasPassedAgain()
    {
        var time = new FakeTimeProvider();
        await using var pool = WorkerPool.Create(new WorkerPoolOptions { TimeProvider = time });
        pool.Grow(2);
        time.Advance(TimeSpan.FromSeconds(9));

        pool.Grow(3); // the third worker is created at 9 s

        for (var second = 10; second < 19; second++)
        {
            time.Advance(Second);
            Assert.Equal(0, pool.Metrics.WorkersRetired);
        }

        time.Advance(Second);
        Assert.Equal(1, pool.Metrics.WorkersRetired);
        Assert.Equal(2, pool.WaitAllParked().WorkersAlive);
    }

    [Fact]
    public async Task LeakyBucket_AllWorkersBusyAtTheTick_TheNextWorkerOutOfWorkRetires()
    {
        var time = new FakeTimeProvider();
        await using var pool = WorkerPool.Create(new WorkerPoolOptions { TimeProvider = time, RetirementDelay = TimeSpan.Zero });
        using var gate = new WorkerGate();
        pool.Post(gate.Hold);
        pool.Post(gate.Hold);
        gate.WaitEntered(2);

        time.Advance(Second);
        Assert.Equal(0, pool.Metrics.WorkersRetired);
        gate.Open();

        var metrics = pool.WaitFor(m => m.WorkersAlive == 1 && m.WorkersIdle == 1);
        Assert.Equal(1, metrics.WorkersRetired);
    }

    [Fact]
    public async Task IdleTimeout_Quiet_RetiresEveryWorkerAfterTheTimeout()
    {
        var time = new FakeTimeProvider();
        await using var pool = WorkerPool.Create(new WorkerPoolOptions { TimeProvider = time, Retirement = WorkerRetirement.IdleTimeout, IdleTimeout = TimeSpan.FromSeconds(5) });
        pool.Grow(3);

        time.Advance(TimeSpan.FromSeconds(4));
        Assert.Equal(0, pool.Metrics.WorkersRetired);
        time.Advance(Second);

        Assert.Equal(3, pool.Metrics.WorkersRetired);
        Assert.Equal(0, pool.WaitFor(m => m.WorkersAlive == 0).WorkersIdle);
    }

    [Fact]
    public async Task IdleTimeout_TrickleSpreadOverTheWorkers_NeverShrinks()
    {
        var metrics = await Trickle(WorkerRetirement.IdleTimeout, workers: 4, seconds: 30);

        Assert.Equal(4, metrics.WorkersAlive);
        Assert.Equal(0, metrics.WorkersRetired);
        Assert.Equal(4, metrics.WorkersCreated);
    }

    [Fact]
    public async Task LeakyBucket_SameTrickle_ShrinksToTheOneWorkerItNeeds()
    {
        var metrics = await Trickle(WorkerRetirement.LeakyBucket, workers: 4, seconds: 30);

        Assert.Equal(1, metrics.WorkersAlive);
        Assert.True(metrics.WorkersRetired >= 4, $"Retired {metrics.WorkersRetired}.");
        Assert.Equal(metrics.WorkersCreated - metrics.WorkersRetired, metrics.WorkersAlive);
    }

    [Theory]
    [InlineData(WorkerRetirement.LeakyBucket)]
    [InlineData(WorkerRetirement.IdleTimeout)]
    public async Task MinWorkers_QuietForAMinute_KeepsTheMinimum(WorkerRetirement retirement)
    {
        var time = new FakeTimeProvider();
        await using var pool = WorkerPool.Create(new WorkerPoolOptions { TimeProvider = time, Retirement = retirement, MinWorkers = 2 });
        pool.Grow(5);

        for (var second = 0; second < 60; second++)
        {
            time.Advance(Second);
        }

        // The two minimum workers may not have parked before Grow posted, so Grow may have started more than 5: every
        // worker beyond the minimum retires, whatever the count.
        var metrics = pool.WaitFor(m => m.WorkersAlive == 2 && m.WorkersIdle == 2);
        Assert.Equal(metrics.WorkersCreated - 2, metrics.WorkersRetired);
        Assert.True(metrics.WorkersRetired >= 3, $"{metrics.WorkersRetired} retired");
    }

    /// <summary>
    /// The seed's case: <paramref name="workers"/> parked workers, then one short task a second for <paramref name="seconds"/>
    /// seconds. Parked workers are woken first in, first out, so each worker gets a task every <paramref name="workers"/>
    /// seconds, well within the 10 s idle timeout.
    /// </summary>
    private static async Task<WorkerPoolMetrics> Trickle(WorkerRetirement retirement, int workers, int seconds)
    {
        var time = new FakeTimeProvider();
        await using var pool = WorkerPool.Create(new WorkerPoolOptions { TimeProvider = time, Retirement = retirement });
        pool.Grow(workers);
        var ran = 0;

        for (var second = 0; second < seconds; second++)
        {
            time.Advance(Second);
            await pool.RunAsync(() => Interlocked.Increment(ref ran), TestContext.Current.CancellationToken).DefaultTimeout();
            pool.WaitAllParked();
        }

        Assert.Equal(seconds, Volatile.Read(ref ran));
        return pool.Metrics;
    }
}
