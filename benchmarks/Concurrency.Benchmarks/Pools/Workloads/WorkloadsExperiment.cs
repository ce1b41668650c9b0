using System.Diagnostics;
using System.Globalization;

namespace Concurrency.Benchmarks.Pools.Workloads;

/// <summary>
/// Seed 004 (Scheduling in Go, part III): when does splitting work across workers pay? A CPU-bound sum, a bubble sort
/// that does not parallelize, and an I/O-bound search, each sequential and split into the seed's 8 parts on each kind of
/// worker, at each core count. The report gives the speed-up over sequential with its range.
/// </summary>
public sealed class WorkloadsExperiment : ILabExperiment
{
    /// <summary>The seed splits into runtime.NumCPU() goroutines, 8 on its machine, whatever -cpu allows.</summary>
    private const int Parts = 8;

    private static readonly TimeSpan MinimumRun = TimeSpan.FromMilliseconds(100);
    private static readonly TimeSpan WarmUp = TimeSpan.FromMilliseconds(300);

    public string Name => "workloads";

    public string Title => "When concurrency pays: CPU-bound, not parallelizable, I/O-bound (seed 004)";

    public string Description => "sum 10M integers, bubble sort, search 1,000 documents: sequential vs split over our workers";

    public string Method => """
        The seed (Go, 2.9 GHz 4-core i7, split into 8 goroutines, `GOGC=off`, go test `-cpu 1` and `-cpu 8`) measured three
        workloads. **Sum of 10,000,000 integers**: 5.72 ms sequential against 6.39 ms split on 1 core (sequential 10–13%
        faster), 5.91 against 3.36 ms on 8 cores (split 41–43% faster). **Bubble sort**, split into chunks sorted
        concurrently and then bubble-sorted whole: no gain. **Search of 1,000 documents** with 1 ms of simulated latency per
        read: 1.48 s sequential against 189 ms split on 1 core and 1.49 s against 187 ms on 8 cores (87–88% less time on both).

        Here each workload runs sequentially on one thread, then split into the seed's 8 parts on each kind of worker, built
        once and reused (as a server keeps its pool): the .NET thread pool (`Task.Run` per part), our batch-drain queue
        pipe with 8 work-sharing consumer threads, and our elastic worker pool (a part never waits for a free worker).
        "Split, no workers" runs the 8 parts one after another on the calling thread: what splitting alone costs or saves.
        The bubble sort is split two ways: the seed's (chunks, then the whole array bubble-sorted again) and with a k-way
        merge of the sorted chunks, which changes the algorithm (8 chunks of n/8 cost an eighth of the comparisons) and so
        pays even with no workers at all: that gain is the algorithm's, not concurrency's. The search's 1 ms read is
        simulated two ways: a blocking `Thread.Sleep(1)` (a synchronous read: it holds its thread, and the thread pool must
        inject threads to overlap them) and an awaited `Task.Delay(1)` (an asynchronous read: no thread is held, but the
        runtime's timers are coarser than 1 ms, so each such read lasts longer: the table's note gives what a read took). The awaited search is split into 8 async loops that each take the next
        document, the seed's shape in async code, and also run as all 1,000 reads at once; a pipe's or the pool's
        handlers are synchronous, so they appear only on the blocking read.

        Times are per operation: after a warm-up, each run repeats the operation for at least 100 ms; the median of the runs
        with the lowest and highest in brackets. Speed-up = sequential ÷ split (above 1: splitting paid), its range from the
        two ranges; the verdict says "faster" or "slower" only where the ranges do not overlap. Every operation checks its
        result (the sum against its closed form, the sort against the sorted input, the count of matching documents) and
        a wrong one fails the lab.
        """;

    public bool PerCoreCount => true;

    public LabOutcome Run(LabContext context)
    {
        ArgumentNullException.ThrowIfNull(context);
        var quick = context.Quick;
        IWorkload[] workloads =
        [
            new CpuSum(quick ? 200_000 : 10_000_000),
            new BubbleSort(quick ? 800 : 20_000, mergeBySort: false),
            new BubbleSort(quick ? 800 : 20_000, mergeBySort: true),
            new DocumentSearch(quick ? 40 : 1_000, awaited: false),
            new DocumentSearch(quick ? 40 : 1_000, awaited: true),
        ];
        ILabWorkers[] workers = [new InlineWorkers(), new TaskRunWorkers(), new PipeWorkers(Parts), new PoolWorkers()];
        try
        {
            var rows = new List<IReadOnlyList<string>>();
            var reads = new List<string>();
            var steps = workloads.Length * (1 + workers.Length);
            var step = 0;
            foreach (var workload in workloads)
            {
                context.Report((double)step++ / steps, $"{workload.Name[..Math.Min(24, workload.Name.Length)]}: sequential");
                var sequential = Measure(workload.RunSequential, quick);
                if (workload is DocumentSearch search)
                {
                    reads.Add(string.Create(CultureInfo.InvariantCulture, $"{(search.Awaited ? "an awaited" : "a blocking")} read {sequential.Median / search.Documents:0.00} ms"));
                }
                foreach (var (label, split) in Splits(workload, workers))
                {
                    context.Cancellation.ThrowIfCancellationRequested();
                    context.Report((double)step++ / steps, $"{workload.Name[..Math.Min(24, workload.Name.Length)]}: {label}");
                    rows.Add(Row(workload, label, sequential, Measure(split, quick)));
                }
            }

            return new LabOutcome(
                [new LabTable(
                    "Speed-up of splitting over sequential",
                    ["workload", "split on", "sequential ms", "split ms", "speed-up", "verdict"],
                    rows,
                    ["sequential ms", "split ms", "speed-up"],
                    $"Split into {Parts} parts. Speed-up above 1: splitting paid. Ranges are the lowest and highest run. "
                    + $"One simulated 1 ms read took, on average over the sequential search: {string.Join("; ", reads)}.")],
                []);
        }
        finally
        {
            foreach (var worker in workers)
            {
                worker.Dispose();
            }
        }
    }

    private static IEnumerable<(string Label, Action Split)> Splits(IWorkload workload, ILabWorkers[] workers)
    {
        if (workload is DocumentSearch { Awaited: true } search)
        {
            yield return ($"{Parts} async loops (await, Task.WhenAll)", () => search.RunAwaitedLoops(Parts));
            yield return ("every read at once (await, Task.WhenAll)", () => search.RunAwaitedLoops(search.Documents));
            yield break;
        }

        foreach (var worker in workers)
        {
            yield return (worker.Name, () => workload.RunSplit(worker, Parts));
        }
    }

    private static string[] Row(IWorkload workload, string label, LabSample sequential, LabSample split)
    {
        var speedUp = new LabSample(sequential.Median / split.Median, sequential.Low / split.High, sequential.High / split.Low, Math.Min(sequential.Count, split.Count));
        var verdict = split.High < sequential.Low ? "faster" : split.Low > sequential.High ? "slower" : "no difference (ranges overlap)";
        return [workload.Name, label, sequential.Format(Digits(sequential.Median)), split.Format(Digits(split.Median)), speedUp.Format("0.00") + "×", verdict];
    }

    private static string Digits(double milliseconds) => milliseconds >= 100 ? "N0" : milliseconds >= 10 ? "N1" : "N2";

    /// <summary>Milliseconds per operation: a warm-up, then runs of at least <see cref="MinimumRun"/> each.</summary>
    private static LabSample Measure(Action operation, bool quick)
    {
        var clock = Stopwatch.StartNew();
        for (var done = 0; done < (quick ? 1 : 2) || (!quick && clock.Elapsed < WarmUp); done++)
        {
            operation();
        }

        return LabSample.Repeat(quick ? 1 : 5, () =>
        {
            var run = Stopwatch.StartNew();
            var operations = 0;
            do
            {
                operation();
                operations++;
            }
            while (run.Elapsed < MinimumRun);
            return run.Elapsed.TotalMilliseconds / operations;
        });
    }
}
