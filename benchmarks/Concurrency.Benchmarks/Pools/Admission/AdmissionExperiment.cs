using System.Globalization;
using System.Text;

namespace Concurrency.Benchmarks.Pools.Admission;

/// <summary>
/// Seed 002's stress table: threads against time, items/s, rejected and the most outstanding, with no limit, a limit that
/// rejects, and a limit with throttling below it; and whether throttling cost more than it saved.
/// </summary>
public sealed class AdmissionExperiment : ILabExperiment
{
    private static readonly int[] FullThreads = [1, 2, 3, 4, 5, 6, 8, 10, 16, 20, 30];
    private static readonly int[] QuickThreads = [1, 2, 4];

    public string Name => "admission";

    public string Title => "Admission control under load";

    public string Description => "Threads submitting items through a limit of outstanding items: no limit, reject past it, throttle below it; items/s, rejected, most outstanding.";

    public string Method =>
        $"""
        The seed (gSuneido, "A gSuneido Database Issue") limited outstanding transactions to 200 and, when customers hit the
        limit, added throttling "only when the outstanding transactions got high (e.g. 100)". It "did solve the problem", but
        "once it throttled, it got really slow. If you throttled enough to prevent hitting the limit e.g to 10 transactions
        per second, then 1000 transactions would go from maybe .1 seconds to 100 seconds": "the cure seemed worse than the
        disease". With the limit removed its stress test gave (threads, time, tran/sec, conflicts, max trans): 1, 2 sec,
        5000, 100, 70; 2, 2 sec, 10000, 150, 110; 3, 3 sec, 10000, 200, 150; 4, 4 sec, 10000, 200, 180; 5, 4 sec, 12500,
        200, 200; 6, 5 sec, 12000, 300, 230; 8, 8 sec, 10000, 300, 270; 10, 10 sec, 10000, 300, 300; 16, 20 sec, 8000, 400,
        450; 20, 30 sec, 7000, 500, 490; 30, 50 sec, 7000, 600, 580. "The load itself slowed things down and effectively did
        its own throttling."

        Here each thread attempts a fixed number of items through one `AdmissionGate` (`EnterAsync`), as fast as it can,
        keeping up to {AdmissionStress.Window} of its items outstanding: an admitted item does about
        {AdmissionStress.WorkMicroseconds} µs of CPU work, then stays outstanding for {AdmissionStress.ShortHoldMicroseconds} µs,
        or {AdmissionStress.LongHoldMicroseconds:N0} µs for one item in {AdmissionStress.LongEvery} (short and long
        transactions); a thread releases its items whose hold has passed before each attempt and while it waits, so an item
        outlasts its hold while its thread is descheduled. So with no limit the most outstanding grows with the threads
        roughly as the seed's did (about 200 at 5 threads). *none*: a gate whose limit is never reached (the seed's run with
        the limit removed). *reject*: limit {AdmissionSetup.Limit}; an entry past it fails with `AdmissionRejectedException`
        and is counted, not retried (the seed's "too many outstanding transactions"); the rejection costs a thrown exception,
        as the seed's error did. *throttle*: the same limit, and each
        entry that finds {AdmissionSetup.Threshold} or more outstanding is delayed {AdmissionSetup.ThrottleDelay.TotalMilliseconds:N0}
        ms (five times an item's mean hold) before it is admitted; the limit still rejects. Items/s counts admitted items,
        which all ran: the work done. Every run checks that admitted plus rejected equals the attempts, that every admitted
        item ran (count and checksum of item numbers) and that the gate never passed its limit. Each cell is the median of
        several runs with the lowest and highest in brackets; *throttled* counts delayed entries.
        """;

    public bool PerCoreCount => false;

    public LabOutcome Run(LabContext context)
    {
        ArgumentNullException.ThrowIfNull(context);
        var threadCounts = context.Quick ? QuickThreads : FullThreads;
        var items = context.Quick ? 200 : 10_000;
        var runs = context.Quick ? 1 : 3;
        var setups = AdmissionSetup.Registry.All;

        foreach (var setup in setups)
        {
            AdmissionStress.Run(setup, 1, 200, context.Cancellation); // warm-up: JIT and the work's calibration
        }

        var steps = (double)(threadCounts.Length * setups.Count * runs);
        var step = 0;
        var cells = new Dictionary<(string Policy, int Threads), Cell>();
        foreach (var threads in threadCounts)
        {
            foreach (var setup in setups)
            {
                var results = new List<AdmissionRunResult>();
                for (var run = 0; run < runs; run++)
                {
                    context.Report(step++ / steps, string.Create(CultureInfo.InvariantCulture, $"{setup.Name}, {threads} threads, run {run + 1}"));
                    results.Add(AdmissionStress.Run(setup, threads, items, context.Cancellation));
                }

                cells[(setup.Name, threads)] = new Cell(results);
            }
        }

        context.Report(1, "done");
        var rows = threadCounts
            .SelectMany(t => setups.Select(s => (IReadOnlyList<string>)[s.Name, Text(t), .. cells[(s.Name, t)].Cells()]))
            .ToList();
        var table = new LabTable(
            "Admission under load",
            ["policy", "threads", "time (ms)", "items/s", "rejected", "throttled", "max outstanding"],
            rows,
            ["threads", "time (ms)", "items/s", "rejected", "throttled", "max outstanding"],
            Note(threadCounts, items, runs, cells));
        var chart = new LabChart(
            "admission",
            "Admitted items/s against threads",
            "threads",
            "items/s",
            [.. setups.Select(s => new LabSeries(s.Name, [.. threadCounts.Select(t => (double)t)], [.. threadCounts.Select(t => cells[(s.Name, t)].ItemsPerSecond.Median)]))]);
        return new LabOutcome([table], [chart]);
    }

    /// <summary>
    /// Whether throttling cost more than it saved, at each thread count where the rejecting limit turned items away: it
    /// saved rejections, and it cost more if rejecting still completed more items per second (every run's range apart).
    /// </summary>
    private static string Note(int[] threadCounts, int items, int runs, Dictionary<(string Policy, int Threads), Cell> cells)
    {
        var text = new StringBuilder(string.Create(CultureInfo.InvariantCulture, $"Each thread attempts {items:N0} items; {runs} run(s) per cell. "));
        var bound = threadCounts.Where(t => cells[("reject", t)].Rejected.Median > 0).ToList();
        if (bound.Count == 0)
        {
            return text.Append("The limit rejected nothing at these thread counts, so throttling had nothing to save.").ToString();
        }

        var costlier = bound.Where(t => cells[("reject", t)].ItemsPerSecond.Above(cells[("throttle", t)].ItemsPerSecond)).ToList();
        var cheaper = bound.Where(t => cells[("throttle", t)].ItemsPerSecond.Above(cells[("reject", t)].ItemsPerSecond)).ToList();
        text.Append(CultureInfo.InvariantCulture, $"Where the limit rejected items ({Threads(bound)} threads), throttling cut the rejections ");
        text.AppendJoin("; ", bound.Select(t => string.Create(CultureInfo.InvariantCulture,
            $"at {t}: {cells[("reject", t)].Rejected.Median:N0} → {cells[("throttle", t)].Rejected.Median:N0}, items/s {cells[("reject", t)].ItemsPerSecond.Median:N0} → {cells[("throttle", t)].ItemsPerSecond.Median:N0}")));
        text.Append(". ");
        var overlapped = bound.Except(costlier).Except(cheaper).ToList();
        if (costlier.Count == bound.Count)
        {
            text.Append("Throttling cost more than it saved at every one of them, as the seed found: rejecting completed more items per second even though its rejected items did no work.");
        }
        else if (cheaper.Count == bound.Count)
        {
            text.Append("Throttling did not cost more than it saved here, unlike the seed: it completed more items per second than rejecting at every one of them.");
        }
        else
        {
            string?[] parts =
            [
                costlier.Count > 0 ? $"at {Threads(costlier)} threads throttling cost more than it saved (rejecting completed more items per second)" : null,
                cheaper.Count > 0 ? $"at {Threads(cheaper)} threads it saved more than it cost (it completed more items per second than rejecting)" : null,
                overlapped.Count > 0 ? $"at {Threads(overlapped)} threads the runs' ranges overlapped" : null,
            ];
            text.Append("Mixed: ").AppendJoin("; ", parts.OfType<string>()).Append('.');
        }

        var slower = bound.Where(t => cells[("none", t)].ItemsPerSecond.Above(cells[("throttle", t)].ItemsPerSecond)).ToList();
        text.Append(CultureInfo.InvariantCulture, $" Against no limit at all, throttling completed fewer items per second at {slower.Count} of these {bound.Count} thread counts.");
        return text.ToString();
    }

    private static string Threads(List<int> threads) => string.Join(", ", threads);

    private static string Text(int value) => value.ToString(CultureInfo.InvariantCulture);

    private sealed class Cell(List<AdmissionRunResult> results)
    {
        public LabSample ItemsPerSecond { get; } = LabSample.Of([.. results.Select(r => r.ItemsPerSecond)]);

        public LabSample Rejected { get; } = LabSample.Of([.. results.Select(r => (double)r.Rejected)]);

        public IEnumerable<string> Cells() =>
        [
            LabSample.Of([.. results.Select(r => r.Seconds * 1_000)]).Format("N0"),
            ItemsPerSecond.Format("N0"),
            Rejected.Format("N0"),
            LabSample.Of([.. results.Select(r => (double)r.Throttled)]).Format("N0"),
            LabSample.Of([.. results.Select(r => (double)r.MaxOutstanding)]).Format("N0"),
        ];
    }
}
