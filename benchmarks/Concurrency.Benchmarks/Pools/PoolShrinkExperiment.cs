using System.Globalization;
using Concurrency.Messaging.Workers;

namespace Concurrency.Benchmarks.Pools;

/// <summary>
/// The seed's point, on a fake clock: under a trickle of tasks spread over every idle worker, an idle timeout never
/// retires anyone, while the leaky bucket shrinks the pool to what the trickle needs.
/// </summary>
public sealed class PoolShrinkExperiment : ILabExperiment
{
    /// <summary>The longest a worker goes without a task in the trickle, in fake seconds: within the default 10 s idle timeout.</summary>
    private const int LongestGap = 8;

    public string Name => "pool-shrink";

    public string Title => "Elastic worker pool: shrinking after a spike";

    public string Description => "Workers alive over fake time under a spread trickle then quiet: leaky bucket against idle timeout.";

    public string Method =>
        """
        The seed retired idle workers with a per-worker timer reset by each task, then noticed on its metrics that "the number
        of workers rarely went down": tasks "end up distributed over workers. So even with a low level of activity, workers
        tend to get at least one task per 5 seconds, and therefore they don't terminate". Its fix is a leaky bucket: "a killer
        goroutine that sends a poison pill" every interval, not within a delay after a worker was created; "if the interval is
        1 second and the delay 10 seconds, in a steady state a worker would be killed and then recreated every 10 seconds".
        Here the elastic pool runs on a `FakeTimeProvider` with its defaults (pill every 1 s, 10 s delay; or a 10 s idle
        timeout). A spike starts the workers at 0 s; then a few short tasks arrive each fake second, so few that one worker
        could run them all, yet enough that each idle worker gets one within 8 s (idle workers are woken first in, first
        out, as a Go channel serves its receivers); then the tasks stop. After each second the lab waits until every task has
        run and every worker is parked or gone, so the trace is deterministic. Every task is counted, and created less
        retired must equal alive.
        """;

    public bool PerCoreCount => false;

    public LabOutcome Run(LabContext context)
    {
        ArgumentNullException.ThrowIfNull(context);
        var workers = context.Quick ? 4 : 16;
        var scenario = new ShrinkScenario(workers, context.Quick ? 20 : 60, (workers + LongestGap - 1) / LongestGap, context.Quick ? 15 : 30);
        context.Report(0, "leaky bucket");
        var leaky = ShrinkTrace.Run(WorkerRetirement.LeakyBucket, scenario, context.Cancellation);
        context.Report(0.5, "idle timeout");
        var idle = ShrinkTrace.Run(WorkerRetirement.IdleTimeout, scenario, context.Cancellation);
        context.Report(1, "done");

        var seconds = Enumerable.Range(0, leaky.Alive.Count).ToArray();
        var shown = seconds.Where(s => s % 5 == 0 || s == scenario.TrickleSeconds + 1 || s == seconds[^1]).Distinct();
        var timeline = new LabTable(
            "Workers alive over fake time",
            ["time (s)", "phase", "leaky bucket", "idle timeout"],
            [.. shown.Select(s => (IReadOnlyList<string>)[Cell(s), Phase(s, scenario), Cell(leaky.Alive[s]), Cell(idle.Alive[s])])],
            ["time (s)", "leaky bucket", "idle timeout"],
            $"{scenario.Workers} workers started at 0 s; {scenario.TasksPerSecond} task(s) per second until {scenario.TrickleSeconds} s, then none.");
        var summary = new LabTable(
            "Workers created and retired",
            ["policy", "tasks run", "workers created", "workers retired", $"alive at {scenario.TrickleSeconds} s", $"alive at {seconds[^1]} s"],
            [.. new[] { leaky, idle }.Select(t => (IReadOnlyList<string>)[Policy(t.Retirement), Cell(t.TasksRun), Cell(t.Created), Cell(t.Retired), Cell(t.AliveAfterTrickle), Cell(t.Alive[^1])])],
            ["tasks run", "workers created", "workers retired", $"alive at {scenario.TrickleSeconds} s", $"alive at {seconds[^1]} s"]);
        var chart = new LabChart(
            "pool-shrink",
            "Workers alive: a spread trickle, then quiet",
            "fake time (s)",
            "workers alive",
            [.. new[] { leaky, idle }.Select(t => new LabSeries(Policy(t.Retirement), [.. seconds.Select(s => (double)s)], [.. t.Alive.Select(a => (double)a)]))]);
        return new LabOutcome([timeline, summary], [chart]);
    }

    private static string Phase(int second, ShrinkScenario scenario)
        => second == 0 ? "spike" : second <= scenario.TrickleSeconds ? "trickle" : "quiet";

    private static string Policy(WorkerRetirement retirement)
        => retirement == WorkerRetirement.LeakyBucket ? "leaky bucket" : "idle timeout";

    private static string Cell(long value) => value.ToString(CultureInfo.InvariantCulture);
}
