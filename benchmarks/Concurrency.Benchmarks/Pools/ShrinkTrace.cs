using Concurrency.Messaging.Workers;
using Microsoft.Extensions.Time.Testing;

namespace Concurrency.Benchmarks.Pools;

/// <summary>
/// One retirement policy through the shrink scenario on a fake clock: grow to a number of workers, then a trickle of tasks
/// each fake second, then quiet. Records the workers alive at each second, after every task of that second ran and every
/// worker is parked again (or gone), so the trace is the same on every machine.
/// </summary>
public sealed record ShrinkTrace(WorkerRetirement Retirement, IReadOnlyList<int> Alive, int AliveAfterTrickle, long Created, long Retired, long TasksRun)
{
    private static readonly TimeSpan SettleLimit = TimeSpan.FromSeconds(10);

    /// <summary>Runs the scenario under <paramref name="retirement"/>.</summary>
    /// <exception cref="LabVerificationException">A task was lost, the pool never settled, or its counts disagree.</exception>
    public static ShrinkTrace Run(WorkerRetirement retirement, ShrinkScenario scenario, CancellationToken cancellation)
    {
        ArgumentNullException.ThrowIfNull(scenario);
        var time = new FakeTimeProvider();
        using var pool = WorkerPool.Create(new WorkerPoolOptions { Retirement = retirement, TimeProvider = time });
        Grow(pool, scenario.Workers);
        var alive = new List<int> { Settle(pool).WorkersAlive };
        long ran = 0;
        for (var second = 1; second <= scenario.TrickleSeconds + scenario.QuietSeconds; second++)
        {
            cancellation.ThrowIfCancellationRequested();
            time.Advance(TimeSpan.FromSeconds(1));
            for (var i = 0; second <= scenario.TrickleSeconds && i < scenario.TasksPerSecond; i++)
            {
                if (!pool.RunAsync(() => Interlocked.Increment(ref ran), cancellation).Wait(SettleLimit, cancellation))
                {
                    throw new LabVerificationException($"{retirement}: a trickle task did not run within {SettleLimit}.");
                }

                Settle(pool); // the worker parks again before the next task, so the next one goes to the longest parked
            }

            alive.Add(Settle(pool).WorkersAlive);
        }

        var end = pool.Metrics;
        var expected = (long)scenario.TrickleSeconds * scenario.TasksPerSecond;
        if (Interlocked.Read(ref ran) != expected || end.WorkersCreated - end.WorkersRetired != end.WorkersAlive || end.TasksFailed != 0)
        {
            throw new LabVerificationException($"{retirement}: ran {Interlocked.Read(ref ran)} of {expected} tasks; {end}.");
        }

        return new ShrinkTrace(retirement, alive, alive[scenario.TrickleSeconds], end.WorkersCreated, end.WorkersRetired, Interlocked.Read(ref ran));
    }

    /// <summary>Holds <paramref name="workers"/> tasks at once, so the pool starts that many workers, then lets them go.</summary>
    private static void Grow(IWorkerPool pool, int workers)
    {
        using var gate = new ManualResetEventSlim(false);
        var entered = 0;
        for (var i = 0; i < workers; i++)
        {
            pool.Post(() =>
            {
                Interlocked.Increment(ref entered);
                gate.Wait(SettleLimit);
            });
        }

        var held = SpinWait.SpinUntil(() => Volatile.Read(ref entered) == workers, SettleLimit);
        gate.Set();
        if (!held)
        {
            throw new LabVerificationException($"Only {Volatile.Read(ref entered)} of {workers} tasks started at once.");
        }

        Settle(pool);
    }

    /// <summary>Waits (bounded, in real time) until every worker alive is parked: no task running, no retiring worker left.</summary>
    private static WorkerPoolMetrics Settle(IWorkerPool pool)
    {
        var metrics = pool.Metrics;
        if (!SpinWait.SpinUntil(() => (metrics = pool.Metrics).WorkersIdle == metrics.WorkersAlive, SettleLimit))
        {
            throw new LabVerificationException($"The pool never settled: {metrics}.");
        }

        return metrics;
    }
}
