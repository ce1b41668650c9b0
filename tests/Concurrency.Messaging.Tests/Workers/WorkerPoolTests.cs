namespace Concurrency.Messaging.Tests.Workers;

/// <summary>What the elastic pool runs and how: every task exactly once, never waiting for a worker, failures reported.</summary>
public sealed class WorkerPoolTests
{
    [Fact]
    public async Task Post_ManyProducersManyTasks_EveryTaskRunsExactlyOnce()
    {
        const int producers = 8;
        const int tasksEach = 5_000;
        const int total = producers * tasksEach;
        await using var pool = WorkerPool.Create();
        var runs = new int[total];
        long sum = 0;
        using var done = new CountdownEvent(total);

        var posting = Enumerable.Range(0, producers).Select(p => Task.Run(() =>
        {
            for (var i = 0; i < tasksEach; i++)
            {
                var id = (p * tasksEach) + i;
                pool.Post(() =>
                {
                    Interlocked.Increment(ref runs[id]);
                    Interlocked.Add(ref sum, id + 1);
                    done.Signal();
                });
            }
        }, TestContext.Current.CancellationToken));
        await Task.WhenAll(posting).DefaultTimeout();

        Assert.True(done.Wait(TestTimeouts.Default, TestContext.Current.CancellationToken), $"{done.CurrentCount} tasks never ran.");
        Assert.Equal((long)total * (total + 1) / 2, Interlocked.Read(ref sum));
        Assert.All(runs, r => Assert.Equal(1, r));
        var metrics = pool.WaitFor(m => m.TasksCompleted == total);
        Assert.Equal(0, metrics.TasksFailed);
        Assert.Equal(0, metrics.TasksQueued);
    }

    [Fact]
    public async Task RunAsync_ManyProducers_EveryResultArrives()
    {
        const int producers = 4;
        const int tasksEach = 1_000;
        await using var pool = WorkerPool.Create();

        var results = await Task.WhenAll(Enumerable.Range(0, producers).Select(p => Task.Run(async () =>
        {
            var mine = Enumerable.Range(0, tasksEach).Select(i => pool.RunAsync(() => (long)(p * tasksEach) + i + 1, TestContext.Current.CancellationToken));
            return (await Task.WhenAll(mine)).Sum();
        }, TestContext.Current.CancellationToken))).DefaultTimeout();

        const long total = producers * tasksEach;
        Assert.Equal(total * (total + 1) / 2, results.Sum());
    }

    [Fact]
    public async Task Post_AllWorkersBlocked_StartsANewWorkerThatRunsTheTask()
    {
        // The fourth worker is the last the cap allows: under the cap a post still starts one at once.
        await using var pool = WorkerPool.Create(new WorkerPoolOptions { MaxWorkers = 4 });
        using var gate = new WorkerGate();
        for (var i = 0; i < 3; i++)
        {
            pool.Post(gate.Hold);
        }

        gate.WaitEntered(3);
        var ran = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);

        pool.Post(ran.SetResult);

        await ran.Task.DefaultTimeout();
        var metrics = pool.Metrics;
        Assert.Equal(4, metrics.WorkersCreated);
        Assert.Equal(4, metrics.WorkersAlive);
        gate.Open();
    }

    [Fact]
    public async Task Post_AWorkerParked_ReusesIt()
    {
        await using var pool = WorkerPool.Create();
        await pool.RunAsync(() => { }, TestContext.Current.CancellationToken).DefaultTimeout();
        pool.WaitFor(m => m.WorkersIdle == 1);

        await pool.RunAsync(() => { }, TestContext.Current.CancellationToken).DefaultTimeout();

        Assert.Equal(1, pool.Metrics.WorkersCreated);
    }

    [Fact]
    public async Task Post_TaskThrows_ReportedOnFailuresAndTheWorkerCarriesOn()
    {
        await using var pool = WorkerPool.Create();
        var reported = new TaskCompletionSource<WorkerPoolFailure>(TaskCreationOptions.RunContinuationsAsynchronously);
        using var subscription = pool.Failures.Subscribe(f => reported.TrySetResult(f));
        var boom = new InvalidOperationException("task");

        pool.Post(() => throw boom);

        var failure = await reported.Task.DefaultTimeout();
        Assert.Same(boom, failure.Exception);
        Assert.StartsWith("Elastic worker", failure.Worker, StringComparison.Ordinal);
        var metrics = pool.WaitFor(m => m.WorkersIdle == 1);
        Assert.Equal(1, metrics.TasksFailed);
        Assert.Equal(1, metrics.TasksCompleted);

        Assert.Equal(42, await pool.RunAsync(() => 42, TestContext.Current.CancellationToken).DefaultTimeout());
        Assert.Equal(1, pool.Metrics.WorkersCreated);
    }

    [Fact]
    public async Task Post_FailuresSubscriberThrows_CountedDroppedAndTheWorkerCarriesOn()
    {
        var pool = WorkerPool.Create();
        using var subscription = pool.Failures.Subscribe(_ => throw new InvalidOperationException("subscriber"));

        pool.Post(() => throw new InvalidOperationException("task"));

        Assert.Equal(7, await pool.RunAsync(() => 7, TestContext.Current.CancellationToken).DefaultTimeout());
        pool.WaitFor(m => m.TasksFailed == 1 && m.TasksCompleted == 2);
        Assert.Equal(1, pool.Metrics.SubscriberErrors); // reported before the failed task counts as completed
        await pool.ShutdownAsync(TestContext.Current.CancellationToken).DefaultTimeout();
        Assert.Equal(0, pool.Metrics.WorkersAlive);
    }

    [Fact]
    public async Task RunAsync_WorkThrows_FaultsItsTaskAndReportsNoFailure()
    {
        await using var pool = WorkerPool.Create();
        var reported = 0;
        using var subscription = pool.Failures.Subscribe(_ => Interlocked.Increment(ref reported));
        var boom = new InvalidOperationException("work");

        var thrown = await Assert.ThrowsAsync<InvalidOperationException>(() => pool.RunAsync<int>(() => throw boom, TestContext.Current.CancellationToken).DefaultTimeout());
        await Assert.ThrowsAsync<InvalidOperationException>(() => pool.RunAsync(() => throw boom, TestContext.Current.CancellationToken).DefaultTimeout());

        Assert.Same(boom, thrown);
        var metrics = pool.WaitFor(m => m.TasksCompleted == 2);
        Assert.Equal(0, metrics.TasksFailed);
        Assert.Equal(0, Volatile.Read(ref reported));
    }

    [Fact]
    public async Task RunAsync_TokenCancelledBeforeStart_CancelledWithoutRunning()
    {
        await using var pool = WorkerPool.Create();
        using var cancelled = new CancellationTokenSource();
        await cancelled.CancelAsync();
        var ran = false;

        var run = pool.RunAsync(() => ran = true, cancelled.Token);

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => run.DefaultTimeout());
        Assert.True(run.IsCanceled);
        Assert.False(ran);
    }

    [Fact]
    public void Post_NullWork_ThrowsArgumentNull()
    {
        using var pool = WorkerPool.Create();

        Assert.Throws<ArgumentNullException>(() => pool.Post(null!));
        Assert.Throws<ArgumentNullException>(() => pool.TryPost(null!));
        Assert.Throws<ArgumentNullException>(() => { _ = pool.RunAsync((Action)null!, TestContext.Current.CancellationToken); });
        Assert.Throws<ArgumentNullException>(() => { _ = pool.RunAsync((Func<int>)null!, TestContext.Current.CancellationToken); });
    }

    [Fact]
    public void Create_BadOptions_ThrowClearly()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => WorkerPool.Create(new WorkerPoolOptions { RetirementInterval = TimeSpan.Zero }));
        Assert.Throws<ArgumentOutOfRangeException>(() => WorkerPool.Create(new WorkerPoolOptions { RetirementInterval = Timeout.InfiniteTimeSpan }));
        Assert.Throws<ArgumentOutOfRangeException>(() => WorkerPool.Create(new WorkerPoolOptions { RetirementInterval = TimeSpan.MaxValue }));
        Assert.Throws<ArgumentOutOfRangeException>(() => WorkerPool.Create(new WorkerPoolOptions { RetirementDelay = TimeSpan.FromSeconds(-1) }));
        Assert.Throws<ArgumentOutOfRangeException>(() => WorkerPool.Create(new WorkerPoolOptions { IdleTimeout = TimeSpan.Zero }));
        Assert.Throws<ArgumentOutOfRangeException>(() => WorkerPool.Create(new WorkerPoolOptions { MinWorkers = -1 }));
        Assert.Throws<ArgumentOutOfRangeException>(() => WorkerPool.Create(new WorkerPoolOptions { Retirement = (WorkerRetirement)42 }));
        Assert.Throws<ArgumentNullException>(() => WorkerPool.Create(new WorkerPoolOptions { TimeProvider = null! }));
    }

    [Fact]
    public async Task Create_ZeroDelayAndMinimumWorkers_StartsTheMinimum()
    {
        await using var pool = WorkerPool.Create(new WorkerPoolOptions { RetirementDelay = TimeSpan.Zero, MinWorkers = 2 });

        var metrics = pool.WaitFor(m => m.WorkersIdle == 2);

        Assert.Equal(2, metrics.WorkersCreated);
    }
}
