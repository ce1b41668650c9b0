using Concurrency.Benchmarks.Pools;

namespace Concurrency.Benchmarks.Tests;

/// <summary>The pool experiments run quick, in-process, through their verification, so a broken one fails CI without timing anything.</summary>
public sealed class PoolExperimentTests
{
    private static readonly TimeSpan Limit = TimeSpan.FromSeconds(30);

    [Fact]
    public async Task Pool_QuickRun_ATableAndAChartPerLoad()
    {
        var outcome = await RunQuick(new PoolExperiment());

        Assert.Equal(["Pool, steady load", "Pool, spiky load"], outcome.Tables.Select(t => t.Title));
        Assert.All(outcome.Tables, t => Assert.Equal(3, t.Rows.Count));
        Assert.All(outcome.Tables, t => Assert.All(t.Rows, r => Assert.Equal(t.Columns.Count, r.Count)));
        Assert.Equal(2, outcome.Charts.Count);
    }

    [Fact]
    public async Task PoolShrink_QuickRun_LeakyBucketShrinksWhereIdleTimeoutDoesNot()
    {
        var outcome = await RunQuick(new PoolShrinkExperiment());

        var timeline = outcome.Tables[0];
        Assert.NotEmpty(timeline.Rows);
        var atEndOfTrickle = timeline.Rows.Single(r => r[0] == "20");
        Assert.Equal("4", atEndOfTrickle[3]); // idle timeout: all four workers still alive
        Assert.True(int.Parse(atEndOfTrickle[2], System.Globalization.CultureInfo.InvariantCulture) < 4, $"Leaky bucket alive: {atEndOfTrickle[2]}.");
        Assert.Equal(2, outcome.Charts.Single().Series.Count);
    }

    [Fact]
    public async Task PoolBurst_QuickRun_ARowPerContenderAndTheCappedPoolWithinItsCap()
    {
        var outcome = await RunQuick(new PoolBurstExperiment());

        var table = Assert.Single(outcome.Tables);
        string Cell(int row, string column) => table.Rows[row][table.Columns.ToList().IndexOf(column)];
        Assert.Equal(["elastic pool, default cap", "elastic pool, no cap", ".NET thread pool"], table.Rows.Select((_, r) => Cell(r, PoolBurstExperiment.ContenderColumn)));
        Assert.All(table.Rows, r => Assert.Equal(table.Columns.Count, r.Count));

        // The quick burst (500 tasks) is beyond the default cap (max(64, 8 × cores)) on up to 62 cores.
        var cap = Number(Cell(0, PoolBurstExperiment.CapColumn));
        Assert.InRange(Number(Cell(0, PoolBurstExperiment.CreatedColumn)), 1, cap);
        Assert.InRange(Number(Cell(0, PoolBurstExperiment.PeakWorkersColumn)), 1, cap);
        Assert.Equal("500", Cell(0, "tasks run"));
        Assert.Equal("500", Cell(1, "tasks run"));
    }

    [Fact]
    public void All_PoolExperiments_Registered()
    {
        Assert.IsType<PoolExperiment>(LabExperiments.Named("pool"));
        Assert.IsType<PoolShrinkExperiment>(LabExperiments.Named("pool-shrink"));
        Assert.IsType<PoolBurstExperiment>(LabExperiments.Named("pool-burst"));
    }

    private static long Number(string cell) => long.Parse(cell, System.Globalization.NumberStyles.AllowThousands, System.Globalization.CultureInfo.InvariantCulture);

    private static Task<LabOutcome> RunQuick(ILabExperiment experiment)
        => Task.Run(() => experiment.Run(new LabContext(Environment.ProcessorCount, quick: true)), TestContext.Current.CancellationToken)
            .WaitAsync(Limit, TestContext.Current.CancellationToken);
}
