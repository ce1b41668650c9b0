namespace Concurrency.Messaging.Tests.Workers;

/// <summary>Bounded waits on a pool's metrics, for what a worker thread does after the test's own signal (parking, exiting).</summary>
internal static class PoolMetricsWait
{
    /// <summary>Polls the metrics until <paramref name="condition"/> holds, failing the test after <see cref="TestTimeouts.Default"/>.</summary>
    /// <returns>The metrics that satisfied the condition.</returns>
    public static WorkerPoolMetrics WaitFor(this IWorkerPool pool, Func<WorkerPoolMetrics, bool> condition)
    {
        var last = pool.Metrics;
        var met = SpinWait.SpinUntil(() => condition(last = pool.Metrics), TestTimeouts.Default);
        Assert.True(met, $"The pool never reached the expected state; last seen {last}.");
        return last;
    }

    /// <summary>Waits until every worker alive is parked: no task is running and no retiring worker is left.</summary>
    public static WorkerPoolMetrics WaitAllParked(this IWorkerPool pool) => pool.WaitFor(m => m.WorkersIdle == m.WorkersAlive);

    /// <summary>Makes the pool start <paramref name="workers"/> workers by holding that many tasks at once, then lets them all park.</summary>
    public static void Grow(this IWorkerPool pool, int workers)
    {
        using var gate = new WorkerGate();
        for (var i = 0; i < workers; i++)
        {
            pool.Post(gate.Hold);
        }

        gate.WaitEntered(workers);
        gate.Open();
        pool.WaitFor(m => m.WorkersAlive >= workers && m.WorkersIdle == m.WorkersAlive);
    }
}
