using Concurrency.Benchmarks.Logs;

namespace Concurrency.Benchmarks.Tests;

/// <summary>The logs experiment runs quick in-process, every log through its read-back checks, so a broken log fails CI untimed.</summary>
public sealed class LogsExperimentTests
{
    // What Goal says of a goal judged on one launch.
    private static readonly string[] GoalVerdicts = ["not met", "met (median)", "met, even the lowest"];

    [Fact]
    public async Task Run_Quick_EveryLogAtEveryThreadCountInTablesAndCharts()
    {
        var experiment = Assert.IsType<LogsExperiment>(LabExperiments.Named("logs"));

        var outcome = await Task.Run(() => experiment.Run(new LabContext(Environment.ProcessorCount, quick: true)), TestContext.Current.CancellationToken)
            .WaitAsync(TimeSpan.FromMinutes(1), TestContext.Current.CancellationToken);

        var cells = outcome.Tables[0];
        Assert.Equal(LogContenders.All.Count * 2, cells.Rows.Count);
        Assert.All(cells.Rows, row => Assert.Equal(cells.Columns.Count, row.Count));
        Assert.Equal(4, outcome.Tables[1].Rows.Count);
        Assert.All(outcome.Tables[1].Rows, row => Assert.Contains(row[3], GoalVerdicts)); // judged by Goal, on this launch
        var headToHead = outcome.Tables[2];
        Assert.Equal(["in-memory log", "file log, Buffered", "FasterLog Enqueue"], headToHead.Rows.Select(row => row[0]));
        Assert.All(headToHead.Rows, row => Assert.Equal(headToHead.Columns.Count, row.Count));
        Assert.Equal(["reference", "reference"], headToHead.Rows[^1].Skip(2));
        Assert.All(headToHead.Rows.Take(2), row => Assert.Matches(@"^[0-6] of 6$", row[3]));
        Assert.All(outcome.Charts, chart => Assert.Equal(LogContenders.All.Count, chart.Series.Count));
    }

    [Fact]
    public void Measure_LogThatLosesAnAppend_ThrowsLabVerification()
    {
        var lossy = new Contender<LogBuild>("lossy", ContenderFamily.Baseline, _ => new LossyRun()) { Note = "none" };

        Assert.Throws<LabVerificationException>(() => LogAppendRun.Measure(lossy, 2, 100));
    }

    /// <summary>A log that drops every 10th append, as a broken one would.</summary>
    private sealed class LossyRun : ILogRun
    {
        private readonly LockedListRun _inner = new();

        // Counted with Interlocked by the appending threads.
        private int _appends;

        public Task? Append(ReadOnlySpan<byte> entry)
            => Interlocked.Increment(ref _appends) % 10 == 0 ? null : _inner.Append(entry);

        public LogReadBack ReadBack(int every) => _inner.ReadBack(every);

        public void Dispose() => _inner.Dispose();
    }
}
