using Concurrency.Benchmarks.HandOff.Shapes;

namespace Concurrency.Benchmarks.Tests;

/// <summary>The plain loop as a smoke test: <c>loop --quick</c> runs its launch in a child process and writes its table.</summary>
public sealed class LoopCommandTests
{
    private static readonly TimeSpan Limit = TimeSpan.FromMinutes(4);

    [Fact]
    public async Task Run_Quick_OneShortLaunchWritesTheTableAndExitsZero()
    {
        using var run = await CommandRun.RunAsync(Limit, "loop", "--quick");

        run.AssertSucceeded();
        Assert.Contains("Launch 1 of 1:", run.Output, StringComparison.Ordinal);
        var table = File.ReadAllText(run.Single("LOOP-*.md"));
        Assert.Contains("Quick run (--quick)", table, StringComparison.Ordinal);
        Assert.Contains("100,000 preallocated messages", table, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Run_ShapesQuick_EveryPathShapeAndPhaseInTheTableAndExitsZero()
    {
        using var run = await CommandRun.RunAsync(ShapesLimit, "loop", "--shapes", "--quick");

        run.AssertSucceeded();
        var table = File.ReadAllText(run.Single("LOOP-SHAPES-*.md"));
        Assert.Contains("Quick run (--quick)", table, StringComparison.Ordinal);
        foreach (var path in LoopShapes.PathsOf(Phase.Cold))
        {
            Assert.Contains($"| {path} |", table, StringComparison.Ordinal);
        }

        Assert.DoesNotContain($"| {ShapePath.RingPoolRunner} |", table, StringComparison.Ordinal);

        foreach (var shape in LoopShape.All)
        {
            Assert.Contains($" {shape.Name}, cold |", table, StringComparison.Ordinal);
            Assert.Contains($"| {shape.Name} | steady | best pipe", table, StringComparison.Ordinal);
        }

        run.Single("LOOP-SHAPES-*.json");
    }

    [Fact]
    public async Task Run_ShapesQuickBurstOfOneShape_PoolRunnerRowsAndBurstGoalsInTheTable()
    {
        using var run = await CommandRun.RunAsync(ShapesLimit, "loop", "--shapes", "--quick", "--phases", "burst", "--shape", "value,trivial", "--warm-seconds", "0.01");

        run.AssertSucceeded();
        var table = File.ReadAllText(run.Single("LOOP-SHAPES-*.md"));
        foreach (var path in Enum.GetNames<ShapePath>())
        {
            Assert.Contains($"| {path} |", table, StringComparison.Ordinal);
        }

        Assert.Contains(" value, trivial, burst |", table, StringComparison.Ordinal);
        Assert.DoesNotContain("reference, verifying", table, StringComparison.Ordinal);
        Assert.Contains("| value, trivial | burst | Ring ÷ ActionBlock |", table, StringComparison.Ordinal);
        Assert.Contains("| value, trivial | burst | BatchDrainQueue ÷ ActionBlock |", table, StringComparison.Ordinal);
        Assert.Equal(Environment.ProcessorCount == 2, table.Contains("| value, trivial | burst | Ring, pool runner ÷ Ring |", StringComparison.Ordinal));
        var json = File.ReadAllText(run.Single("LOOP-SHAPES-*.json"));
        Assert.Contains(nameof(ShapePath.BatchDrainQueuePoolRunner), json, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("value")]
    [InlineData("value,loud")]
    [InlineData("bytes,trivial")]
    public void Run_ShapesUnknownShape_UsageErrorBeforeAnyLaunch(string shape)
    {
        var error = CommandRun.UsageErrorOf("loop", "--shapes", "--shape", shape);

        Assert.Contains($"'{shape}' is not a shape", error, StringComparison.Ordinal);
    }

    [Fact]
    public void Run_ShapesUnknownPhase_UsageErrorBeforeAnyLaunch()
    {
        var error = CommandRun.UsageErrorOf("loop", "--shapes", "--phases", "cold,lukewarm");

        Assert.Contains("'lukewarm' is not a phase", error, StringComparison.Ordinal);
    }

    public static TheoryData<ShapePath, ShapeMessage, ShapeHandler> PathsAndShapes()
    {
        var data = new TheoryData<ShapePath, ShapeMessage, ShapeHandler>();
        foreach (var path in Enum.GetValues<ShapePath>())
        {
            foreach (var shape in LoopShape.All)
            {
                data.Add(path, shape.Message, shape.Handler);
            }
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(PathsAndShapes))]
    public async Task Measure_ColdSmallRun_HandlerKeptEveryMessageAndRateIsPositive(ShapePath path, ShapeMessage message, ShapeHandler handler)
    {
        var launch = await MeasureSmallRunAsync(Phase.Cold, path, message, handler);

        var run = Assert.Single(launch.Runs);
        Assert.Equal(path, run.Path);
        Assert.True(run.Rate > 0);
        Assert.True(run.CpuPerMessage >= 0);
    }

    [Theory]
    [MemberData(nameof(PathsAndShapes))]
    public async Task Measure_SteadySmallRun_OnlyThatPathRunsInItsProcess(ShapePath path, ShapeMessage message, ShapeHandler handler)
    {
        var launch = await MeasureSmallRunAsync(Phase.Steady, path, message, handler);

        Assert.Equal(Phase.Steady, launch.Phase);
        Assert.Equal(LoopShapes.SteadyRuns, launch.Runs.Count);
        Assert.All(launch.Runs, run => Assert.Equal(path, run.Path));
        Assert.All(launch.Runs, run => Assert.True(run.Rate > 0));
    }

    [Theory]
    [MemberData(nameof(PathsAndShapes))]
    public async Task Measure_BurstSmallRun_EachBurstIntoAFreshPathCheckedAndTimed(ShapePath path, ShapeMessage message, ShapeHandler handler)
    {
        var launch = await MeasureSmallRunAsync(Phase.Burst, path, message, handler);

        Assert.Equal(Phase.Burst, launch.Phase);
        Assert.Equal(1, launch.WarmRounds); // a warm time of zero still warms with one burst
        Assert.Equal(LoopShapes.SteadyRuns, launch.Runs.Count);
        Assert.All(launch.Runs, run => Assert.Equal(path, run.Path));
        Assert.All(launch.Runs, run => Assert.True(run.Rate > 0 && run.CpuPerMessage >= 0));
    }

    /// <summary>One launch's phase of 20,000 messages through the path, off the test's thread, with no warm-up time.</summary>
    private static Task<ShapeLaunch> MeasureSmallRunAsync(Phase phase, ShapePath path, ShapeMessage message, ShapeHandler handler)
        => Task.Run(() => LoopShapes.Measure(new LoopShape(message, handler), phase, path, 20_000, TimeSpan.Zero), TestContext.Current.CancellationToken)
            .WaitAsync(Limit, TestContext.Current.CancellationToken);

    [Fact]
    public void PathsOf_PoolRunnerPaths_OnlyInTheBurstPhase()
    {
        Assert.DoesNotContain(ShapePath.RingPoolRunner, LoopShapes.PathsOf(Phase.Cold));
        Assert.DoesNotContain(ShapePath.BatchDrainQueuePoolRunner, LoopShapes.PathsOf(Phase.Steady));
        Assert.Equal(Enum.GetValues<ShapePath>(), LoopShapes.PathsOf(Phase.Burst));
    }

    [Fact]
    public void SumOf_ReferenceMessagesPastOneBlock_SumsTheValuesTheyCarry()
    {
        var shape = new LoopShape(ShapeMessage.Reference, ShapeHandler.Trivial);
        var messages = ShapeContender.Block + 10L;

        var expected = Enumerable.Range(0, ShapeContender.Block).Sum(i => (long)i) + Enumerable.Range(0, 10).Sum(i => (long)i);

        Assert.Equal(expected, ShapeContender.SumOf(shape, messages));
    }

    private static readonly TimeSpan ShapesLimit = TimeSpan.FromMinutes(10);
}
