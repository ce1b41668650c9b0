using System.Diagnostics;
using System.Globalization;
using HdrHistogram;

namespace Concurrency.Benchmarks.Pools;

/// <summary>
/// The elastic worker pool (seed 002) against the .NET thread pool and a fixed pool of one thread per core: task
/// throughput and the wait from submit to start, under steady load and under bursts with quiet between them.
/// </summary>
public sealed class PoolExperiment : ILabExperiment
{
    private const int TaskMicroseconds = 1;

    /// <summary>The longest wait the histogram records: a minute, in nanoseconds.</summary>
    private const long LongestLatency = 60_000_000_000;

    public string Name => "pool";

    public string Title => "Elastic worker pool: throughput and latency";

    public string Description => "Small tasks on the elastic pool, the .NET thread pool and a fixed pool; tasks/s and submit-to-start latency, steady and spiky.";

    public string Method =>
        """
        The seed (gSuneido, "Poisoning Workers") runs client requests on an unbounded pool so that all of them make progress
        at once: a request never waits for a free worker, because a new worker starts whenever none is idle, and "creating a
        worker is almost fast enough to do on every task". It publishes no throughput figures. Here one producer thread submits
        small tasks (about 1 µs of CPU each) to three contenders: our elastic pool (`WorkerPool.Create()`: dedicated threads,
        leaky-bucket retirement), the .NET thread pool (`ThreadPool.UnsafeQueueUserWorkItem`, global queue) and a fixed pool of
        one dedicated thread per core (our batch-drain queue pipe with work-sharing consumers). *Steady*: one long run of tasks
        submitted back to back. *Spiky*: bursts submitted back to back, each followed by a quiet pause in which the threads go
        idle. Tasks/s counts busy time only (from a burst's first submit to its last task's end); latency is submit to start,
        recorded per task and read from an HdrHistogram. Each contender is warmed up, then measured in several runs: the
        median with the lowest and highest run in brackets. Every run checks that each task ran exactly once (count and
        checksum). *Threads* is how many threads the contender had when its runs ended.
        """;

    public bool PerCoreCount => true;

    public LabOutcome Run(LabContext context)
    {
        ArgumentNullException.ThrowIfNull(context);
        var runs = context.Quick ? 1 : 5;
        PoolLoad warmUp = new("warm-up", 1, 2_000, TimeSpan.Zero);
        PoolLoad[] loads = context.Quick
            ? [new("steady", 1, 2_000, TimeSpan.Zero), new("spiky", 4, 250, TimeSpan.FromMilliseconds(1))]
            : [new("steady", 1, 200_000, TimeSpan.Zero), new("spiky", 40, 2_500, TimeSpan.FromMilliseconds(10))];
        var contenders = PoolContenders.Registry.All;
        var work = CpuWork.IterationsFor(TaskMicroseconds);
        var steps = (double)(loads.Length * contenders.Count * (runs + 1));
        var step = 0;

        var tables = new List<LabTable>();
        var charts = new List<LabChart>();
        foreach (var load in loads)
        {
            var rows = new List<IReadOnlyList<string>>();
            var series = new List<LabSeries>();
            foreach (var entry in contenders)
            {
                using var contender = entry.Build(context.Cores);
                context.Report(step++ / steps, $"{load.Name}: {contender.Name}, warm-up");
                Measure(contender, warmUp, work, context.Cancellation);
                var results = new List<PoolRunResult>();
                for (var run = 0; run < runs; run++)
                {
                    context.Report(step++ / steps, $"{load.Name}: {contender.Name}, run {run + 1} of {runs}");
                    results.Add(Measure(contender, load, work, context.Cancellation));
                }

                var p50 = Sample(results, r => r.P50);
                var p99 = Sample(results, r => r.P99);
                var p999 = Sample(results, r => r.P999);
                rows.Add([contender.Name, Sample(results, r => r.TasksPerSecond).Format("N0"), p50.Format("N1"), p99.Format("N1"), p999.Format("N1"), contender.Threads.ToString(CultureInfo.InvariantCulture)]);
                series.Add(new LabSeries(contender.Name, [50, 99, 99.9], [p50.Median, p99.Median, p999.Median]));
            }

            tables.Add(new LabTable(
                $"Pool, {load.Name} load",
                ["contender", "tasks/s", "p50 µs", "p99 µs", "p99.9 µs", "threads"],
                rows,
                ["tasks/s", "p50 µs", "p99 µs", "p99.9 µs", "threads"],
                $"{load.Bursts} × {load.BurstSize:N0} tasks of about {TaskMicroseconds} µs" + (load.Quiet > TimeSpan.Zero ? $", {load.Quiet.TotalMilliseconds:N0} ms quiet after each burst" : string.Empty) + $"; {runs} run(s)."));
            charts.Add(new LabChart($"pool-latency-{load.Name}", $"Submit-to-start latency, {load.Name} load", "percentile", "latency (µs)", series, LogY: true));
        }

        context.Report(1, "done");
        return new LabOutcome(tables, charts);
    }

    private static PoolRunResult Measure(IPoolContender contender, PoolLoad load, int work, CancellationToken cancellation)
    {
        using var probe = new PoolProbe(load.Tasks, work);
        long busy = 0;
        var index = 0;
        for (var burst = 0; burst < load.Bursts; burst++)
        {
            if (burst > 0 && load.Quiet > TimeSpan.Zero)
            {
                Thread.Sleep(load.Quiet);
            }

            probe.BeginBurst(load.BurstSize);
            var start = Stopwatch.GetTimestamp();
            for (var i = 0; i < load.BurstSize; i++, index++)
            {
                probe.Submitting(index);
                contender.Submit(probe, index);
            }

            busy += probe.WaitBurst(cancellation) - start;
        }

        probe.Verify(contender.Name);
        var histogram = new LongHistogram(LongestLatency, 3);
        for (var i = 0; i < probe.Tasks; i++)
        {
            histogram.RecordValue(Math.Min(probe.LatencyNanoseconds(i), LongestLatency));
        }

        return new PoolRunResult(
            probe.Tasks / ((double)busy / Stopwatch.Frequency),
            histogram.GetValueAtPercentile(50) / 1_000.0,
            histogram.GetValueAtPercentile(99) / 1_000.0,
            histogram.GetValueAtPercentile(99.9) / 1_000.0);
    }

    private static LabSample Sample(List<PoolRunResult> results, Func<PoolRunResult, double> value) => LabSample.Of([.. results.Select(value)]);
}
