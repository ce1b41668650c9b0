using System.Globalization;

namespace Concurrency.Benchmarks.Pools;

/// <summary>
/// A burst of blocking tasks on our elastic pool with its default cap, on the same pool without a cap, and on the .NET
/// thread pool: how many threads each starts, how much memory that takes, and how long the burst takes to drain. Each
/// contender runs in a fresh process of its own, since the thread pool does not shrink back within one.
/// </summary>
public sealed class PoolBurstExperiment : ILabExperiment
{
    /// <summary>The columns the test reads by name.</summary>
    public const string ContenderColumn = "contender";

    public const string CapColumn = "cap";

    public const string CreatedColumn = "threads created";

    public const string PeakWorkersColumn = "peak workers";

    private static readonly BurstLoad Full = new(10_000, TimeSpan.FromMilliseconds(200), TimeSpan.FromMinutes(3));

    private static readonly BurstLoad Quick = new(500, TimeSpan.FromMilliseconds(20), TimeSpan.FromSeconds(20));

    public string Name => "pool-burst";

    public string Title => "Elastic worker pool: a burst of blocking tasks";

    public string Description => "10,000 tasks that block 200 ms, posted at once: threads, memory and drain time of the capped and uncapped elastic pool and the .NET thread pool.";

    public string Method =>
        """
        The seed's pool started a worker whenever none was idle, and counted no busy ones, so a burst posted while every
        worker is busy starts about one thread per task (2,000 posts of a 200 ms task made 922 workers). The pool now stops
        at `WorkerPoolOptions.MaxWorkers` (default max(64, 8 × cores)) and queues the rest. Here one thread posts 10,000
        tasks back to back, each blocking 200 ms (`Thread.Sleep`, standing for blocking I/O), to three contenders, each in a
        fresh process of its own (the thread pool never shrinks back within one process): our pool with its default cap,
        our pool with `MaxWorkers = int.MaxValue` (the seed's behaviour; sized down, and the table says so, if the machine's
        threads-max, pid_max or `ulimit -u` leave too little room) and the .NET thread pool (`ThreadPool.UnsafeQueueUserWorkItem`),
        which injects threads slowly. Each contender gets a budget of 3 minutes: a row that ran out says how many tasks ran.
        A dedicated thread samples the process every 10 ms (/proc/self/status: Threads, VmRSS, RssAnon) and keeps the peaks.
        *Threads created* is the pool's `WorkersCreated`, or the thread pool's growth (peak `ThreadPool.ThreadCount` less
        its count at the start); *peak workers* is the most alive at a sample. *Time* runs from the first post to the last
        task's end. Every task that ran is checked to have run exactly once (count and checksum).
        """;

    public bool PerCoreCount => false;

    public LabOutcome Run(LabContext context)
    {
        ArgumentNullException.ThrowIfNull(context);
        var load = context.Quick ? Quick : Full;
        if (context.Contender is { } key)
        {
            // A child this experiment started for one contender: one row.
            return new LabOutcome([Table(load, [BurstRun.Measure(BurstContender.Named(key), load)])], []);
        }

        var rows = new List<IReadOnlyList<string>>();
        var contenders = BurstContender.All;
        for (var i = 0; i < contenders.Count; i++)
        {
            context.Cancellation.ThrowIfCancellationRequested();
            var done = (double)i / contenders.Count;
            context.Report(done, contenders[i].Label);
            var outcome = LabChild.Start(context, this, contenders[i].Key, (fraction, step) => context.Report(done + (fraction / contenders.Count), step));
            rows.AddRange(outcome.Tables.Single().Rows);
        }

        context.Report(1, "done");
        return new LabOutcome([Table(load, rows)], []);
    }

    private static LabTable Table(BurstLoad load, IReadOnlyList<IReadOnlyList<string>> rows)
        => new(
            "Pool, a burst of blocking tasks",
            [ContenderColumn, CapColumn, "burst", "tasks run", CreatedColumn, PeakWorkersColumn, "peak process threads", "peak RSS (MB)", "peak private (MB)", "time (s)"],
            rows,
            ["tasks run", CreatedColumn, PeakWorkersColumn, "peak process threads", "peak RSS (MB)", "peak private (MB)", "time (s)"],
            string.Create(CultureInfo.InvariantCulture, $"{load.Tasks:N0} tasks blocking {load.Block.TotalMilliseconds:N0} ms each, posted by one thread; each contender in a fresh process, with a budget of {load.Budget.TotalSeconds:N0} s."));
}
