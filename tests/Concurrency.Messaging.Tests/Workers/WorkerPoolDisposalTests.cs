namespace Concurrency.Messaging.Tests.Workers;

/// <summary>Disposal: running and accepted tasks finish, the retirement timers stop, nothing is accepted afterwards.</summary>
public sealed class WorkerPoolDisposalTests
{
    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public async Task Dispose_TaskRunning_WaitsUntilItEnds(bool asynchronously)
    {
        var pool = WorkerPool.Create();
        using var gate = new WorkerGate();
        var finished = false;
        pool.Post(() =>
        {
            gate.Hold();
            Volatile.Write(ref finished, true);
        });
        gate.WaitEntered(1);

        var disposing = asynchronously
            ? pool.DisposeAsync().AsTask()
            : Task.Factory.StartNew(pool.Dispose, TestContext.Current.CancellationToken, TaskCreationOptions.LongRunning, TaskScheduler.Default);

        // A negative check needs a bound: disposal must still be waiting after 200 ms while the task is held.
        Assert.NotSame(disposing, await Task.WhenAny(disposing, Task.Delay(TimeSpan.FromMilliseconds(200), TestContext.Current.CancellationToken)));
        gate.Open();
        await disposing.DefaultTimeout();
        Assert.True(Volatile.Read(ref finished));
        Assert.Equal(0, pool.Metrics.WorkersAlive);
    }

    [Fact]
    public async Task DisposeAsync_RightAfterManyPosts_RunsEveryAcceptedTask()
    {
        const int tasks = 2_000;
        var pool = WorkerPool.Create();
        var ran = 0;
        for (var i = 0; i < tasks; i++)
        {
            pool.Post(() => Interlocked.Increment(ref ran));
        }

        await pool.DisposeAsync().AsTask().DefaultTimeout();

        Assert.Equal(tasks, Volatile.Read(ref ran));
        Assert.Equal(tasks, pool.Metrics.TasksCompleted);
        Assert.Equal(0, pool.Metrics.TasksQueued);
    }

    [Fact]
    public async Task Post_AfterDispose_Refused()
    {
        var pool = WorkerPool.Create();
        await pool.DisposeAsync().AsTask().DefaultTimeout();

        Assert.Throws<ObjectDisposedException>(() => pool.Post(() => { }));
        Assert.False(pool.TryPost(() => { }));
        Assert.Throws<ObjectDisposedException>(() => { _ = pool.RunAsync(() => 1, TestContext.Current.CancellationToken); });
        Assert.Throws<ObjectDisposedException>(() => { _ = pool.RunAsync(() => { }, TestContext.Current.CancellationToken); });
    }

    [Theory]
    [InlineData(WorkerRetirement.LeakyBucket)]
    [InlineData(WorkerRetirement.IdleTimeout)]
    public async Task DisposeAsync_AfterWork_DisposesEveryRetirementTimer(WorkerRetirement retirement)
    {
        var time = new RecordingTimeProvider();
        var pool = WorkerPool.Create(new WorkerPoolOptions { TimeProvider = time, Retirement = retirement });
        pool.Grow(3);

        await pool.DisposeAsync().AsTask().DefaultTimeout();
        time.Clock.Advance(TimeSpan.FromMinutes(1));

        var expected = retirement == WorkerRetirement.LeakyBucket ? 1 : 3;
        Assert.Equal(expected, time.Timers.Count);
        Assert.All(time.Timers, t => Assert.True(t.IsDisposed));
        Assert.Equal(0, pool.Metrics.WorkersRetired);
    }

    [Fact]
    public async Task Dispose_FromOneOfItsWorkers_DoesNotWaitForItself()
    {
        var pool = WorkerPool.Create();

        await pool.RunAsync(pool.Dispose, TestContext.Current.CancellationToken).DefaultTimeout();

        await pool.ShutdownAsync(TestContext.Current.CancellationToken).DefaultTimeout();
        Assert.False(pool.TryPost(() => { }));
    }

    [Fact]
    public async Task ShutdownAsync_CancelledWhileATaskRuns_ThrowsYetStillShutsDown()
    {
        var pool = WorkerPool.Create();
        using var gate = new WorkerGate();
        pool.Post(gate.Hold);
        gate.WaitEntered(1);
        using var cancel = new CancellationTokenSource();
        await cancel.CancelAsync();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => pool.ShutdownAsync(cancel.Token).DefaultTimeout());

        Assert.False(pool.TryPost(() => { }));
        gate.Open();
        await pool.DisposeAsync().AsTask().DefaultTimeout();
        Assert.Equal(0, pool.Metrics.WorkersAlive);
    }

    [Fact]
    public async Task DisposeAsync_Twice_SecondReturnsAtOnce()
    {
        var pool = WorkerPool.Create();
        pool.Grow(2);

        await pool.DisposeAsync().AsTask().DefaultTimeout();
        var second = pool.DisposeAsync().AsTask();

        Assert.True(second.IsCompletedSuccessfully, $"the second DisposeAsync did not return at once: {second.Status}");
        await second;
        Assert.Equal(0, pool.Metrics.WorkersAlive);
    }
}
