using Concurrency.Benchmarks.Lab;
using Concurrency.Benchmarks.Lab.Pool;
using Xunit;

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
    public void All_PoolExperiments_Registered()
    {
        Assert.IsType<PoolExperiment>(LabExperiments.Named("pool"));
        Assert.IsType<PoolShrinkExperiment>(LabExperiments.Named("pool-shrink"));
    }

    private static Task<LabOutcome> RunQuick(ILabExperiment experiment)
        => Task.Run(() => experiment.Run(new LabContext(Environment.ProcessorCount, quick: true)), TestContext.Current.CancellationToken)
            .WaitAsync(Limit, TestContext.Current.CancellationToken);
}
