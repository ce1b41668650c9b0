namespace Concurrency.Messaging.Tests.Workers;

/// <summary>
/// <see cref="WorkerPoolOptions.MaxWorkers"/>: a burst beyond the cap queues instead of starting a thread per task, every
/// task still runs exactly once, and the pool grows again after its workers retired. The clock is fake and never advanced
/// unless a test retires workers, so no worker retires by accident while a test counts them.
/// </summary>
public sealed class WorkerPoolCapTests
{
    [Fact]
    public async Task Post_BurstBeyondTheCap_NeverExceedsItAndRunsEveryTaskOnce()
    {
        const int cap = 4;
        const int tasks = 100;
        await using var pool = WorkerPool.Create(new WorkerPoolOptions { MaxWorkers = cap, TimeProvider = new FakeTimeProvider() });

        GrowThroughBurst(pool, cap, tasks);

        var end = pool.WaitFor(m => m.TasksCompleted == tasks && m.WorkersIdle == m.WorkersAlive);
        Assert.Equal(cap, end.WorkersCreated); // created only grows: the pool never had more than the cap
        Assert.Equal(0, end.TasksQueued);
    }

    [Theory]
    [InlineData(WorkerRetirement.LeakyBucket)]
    [InlineData(WorkerRetirement.IdleTimeout)]
    public async Task Post_AfterEveryWorkerRetired_GrowsAgainUpToTheCap(WorkerRetirement retirement)
    {
        const int cap = 3;
        const int tasks = 10;
        var time = new FakeTimeProvider();
        await using var pool = WorkerPool.Create(new WorkerPoolOptions { MaxWorkers = cap, TimeProvider = time, Retirement = retirement });
        GrowThroughBurst(pool, cap, tasks);

        // Default delay and idle timeout are 10 s; the leaky bucket then retires one worker a second.
        for (var second = 0; second < 10 + cap; second++)
        {
            time.Advance(TimeSpan.FromSeconds(1));
        }

        var shrunk = pool.WaitFor(m => m.WorkersAlive == 0);
        Assert.Equal(cap, shrunk.WorkersRetired);

        GrowThroughBurst(pool, cap, tasks);
        Assert.Equal(2 * cap, pool.Metrics.WorkersCreated);
    }

    [Fact]
    public async Task RunAsync_CancelledWhileQueuedAtTheCap_CancelledAtOnceAndNeverRuns()
    {
        await using var pool = WorkerPool.Create(new WorkerPoolOptions { MaxWorkers = 2, TimeProvider = new FakeTimeProvider() });
        using var gate = new WorkerGate();
        pool.Post(gate.Hold);
        pool.Post(gate.Hold);
        gate.WaitEntered(2);
        using var cancel = new CancellationTokenSource();
        var ran = 0;

        var run = pool.RunAsync(() => Interlocked.Increment(ref ran), cancel.Token);
        Assert.False(run.IsCompleted);
        await cancel.CancelAsync().DefaultTimeout();

        Assert.True(run.IsCanceled, $"The run is {run.Status} after its token fired.");
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => run.DefaultTimeout());
        gate.Open();
        pool.WaitFor(m => m.TasksCompleted == 3 && m.TasksQueued == 0); // the cancelled run was dequeued, and skipped
        Assert.Equal(0, Volatile.Read(ref ran));
    }

    [Fact]
    public async Task RunAsync_CancelRacingTheStart_EitherRunsOrIsCancelledNeverBoth()
    {
        const int runs = 2_000;
        await using var pool = WorkerPool.Create(new WorkerPoolOptions { MaxWorkers = 2, TimeProvider = new FakeTimeProvider() });
        var ran = new int[runs];
        var cancels = Enumerable.Range(0, runs).Select(_ => new CancellationTokenSource()).ToArray();

        var started = Enumerable.Range(0, runs).Select(i => pool.RunAsync(() => Interlocked.Increment(ref ran[i]), cancels[i].Token)).ToArray();
        await Task.Run(() => Parallel.ForEach(cancels, c => c.Cancel()), TestContext.Current.CancellationToken).DefaultTimeout();
        await Task.WhenAll(started.Select(Ended)).DefaultTimeout();

        for (var i = 0; i < runs; i++)
        {
            Assert.Equal(started[i].IsCanceled ? 0 : 1, Volatile.Read(ref ran[i]));
            Assert.True(started[i].IsCanceled || started[i].IsCompletedSuccessfully, $"Run {i} ended {started[i].Status}.");
            cancels[i].Dispose();
        }

        pool.WaitFor(m => m.TasksCompleted == runs && m.TasksQueued == 0);
    }

    [Theory]
    [InlineData(0, 0)]
    [InlineData(-1, 0)]
    [InlineData(2, 3)]
    public void Create_MaxWorkersBelowOneOrTheMinimum_ThrowsNamingIt(int max, int min)
    {
        var thrown = Assert.Throws<ArgumentOutOfRangeException>(() => WorkerPool.Create(new WorkerPoolOptions { MaxWorkers = max, MinWorkers = min }));

        Assert.Equal("options.MaxWorkers", thrown.ParamName);
    }

    private static async Task Ended(Task run)
    {
        try
        {
            await run.ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
            // cancelled is one of the two ends the caller checks
        }
    }

    /// <summary>Posts a burst of held tasks, checks the pool grew only to the cap, then lets every task run and the workers park.</summary>
    private static void GrowThroughBurst(IWorkerPool pool, int cap, int tasks)
    {
        var before = pool.Metrics.WorkersCreated;
        using var gate = new WorkerGate();
        using var burst = new Burst(tasks, gate);

        burst.PostAll(pool);

        gate.WaitEntered(cap);
        var held = pool.Metrics;
        Assert.Equal(cap, held.WorkersAlive);
        Assert.Equal(before + cap, held.WorkersCreated);
        Assert.Equal(tasks - cap, held.TasksQueued);
        gate.Open();
        burst.VerifyAllRanOnce();
        pool.WaitAllParked();
    }

    /// <summary>Tasks that each wait at the gate, then count their run and add their number to a checksum.</summary>
    private sealed class Burst(int tasks, WorkerGate gate) : IDisposable
    {
        private readonly int[] _runs = new int[tasks];    // Interlocked, per task
        private readonly CountdownEvent _done = new(tasks);
        private long _checksum;                           // Interlocked: the sum of (number + 1) over the tasks run

        public void PostAll(IWorkerPool pool)
        {
            for (var i = 0; i < tasks; i++)
            {
                var id = i;
                pool.Post(() =>
                {
                    gate.Hold();
                    Interlocked.Increment(ref _runs[id]);
                    Interlocked.Add(ref _checksum, id + 1);
                    _done.Signal();
                });
            }
        }

        public void VerifyAllRanOnce()
        {
            Assert.True(_done.Wait(TestTimeouts.Default, TestContext.Current.CancellationToken), $"{_done.CurrentCount} of {tasks} tasks never ran.");
            Assert.Equal((long)tasks * (tasks + 1) / 2, Interlocked.Read(ref _checksum));
            Assert.All(_runs, r => Assert.Equal(1, r));
        }

        public void Dispose() => _done.Dispose();
    }
}
