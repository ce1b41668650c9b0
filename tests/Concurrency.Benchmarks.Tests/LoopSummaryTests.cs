using System.Text.Json;
using Concurrency.Benchmarks.HandOff;

namespace Concurrency.Benchmarks.Tests;

/// <summary>How <c>loop --launches N</c> folds its launches: medians of launches with their spread, ratios within a launch first.</summary>
public sealed class LoopSummaryTests
{
    private static LoopResult Result(string path, double median, int warmups = 3, long compiled = 0, double? roundTrip = null)
        => new(path, median, median * 0.9, median * 1.1, 10 + (median / 1e7), warmups, compiled, roundTrip);

    [Fact]
    public void Merge_ThreeLaunches_TheMedianLaunchWithTheLowestAndHighest()
    {
        IReadOnlyList<LoopResult>[] launches =
        [
            [Result("Ring", 100e6, warmups: 4), Result("Rx", 50e6)],
            [Result("Ring", 60e6, warmups: 9, compiled: 2), Result("Rx", 40e6)],
            [Result("Ring", 80e6, warmups: 6), Result("Rx", 20e6)],
        ];

        var merged = LoopSummary.Merge(launches);

        var ring = merged[0];
        Assert.Equal(["Ring", "Rx"], merged.Select(s => s.Path));
        Assert.Equal((80e6, 60e6, 100e6), (ring.Median, ring.Lowest, ring.Highest));
        Assert.Equal("80.0 M [60.0 M, 100.0 M]", ring.Rate);
        Assert.Equal(18, ring.CpuPerMessage, 6);
        Assert.Equal("4–9", ring.WarmupRuns);
        Assert.Equal(2, ring.MostCompiledDuringRuns);

        // Within each launch: 2.0, 1.5 and 4.0; the median of those, not 80 M ÷ 40 M.
        Assert.Equal("2.00× [1.50, 4.00]", ring.Times(merged[1]));
        Assert.Equal("1.00× [1.00, 1.00]", merged[1].Times(merged[1]));
    }

    [Fact]
    public void Merge_OneLaunch_KeepsItsRunsAsTheBracket()
    {
        var merged = LoopSummary.Merge([[Result("Ring", 100e6), Result("Rx", 50e6)]]);

        Assert.Equal("100.0 M [90.0 M, 110.0 M]", merged[0].Rate);
        Assert.Equal("3", merged[0].WarmupRuns);

        // The extremes divided: 90 ÷ 55 and 110 ÷ 45.
        Assert.Equal("2.00× [1.64, 2.44]", merged[0].Times(merged[1]));
    }

    [Fact]
    public void Merge_EvenLaunches_TheMeanOfTheMiddleTwo()
    {
        var merged = LoopSummary.Merge([[Result("Ring", 100e6)], [Result("Ring", 60e6)]]);

        Assert.Equal(80e6, merged[0].Median);
    }

    [Fact]
    public void RoundTrip_MedianOfTheLaunchesThatMeasuredIt_OrADashOnOneCore()
    {
        var twoCores = LoopSummary.Merge([[Result("Ring", 1, roundTrip: 70)], [Result("Ring", 1, roundTrip: 380)], [Result("Ring", 1, roundTrip: 330)]]);
        var oneCore = LoopSummary.Merge([[Result("Ring", 1)], [Result("Ring", 1)]]);

        Assert.Equal("330 [70, 380] ns", twoCores[0].RoundTrip);
        Assert.Equal("–", oneCore[0].RoundTrip);
        Assert.Equal("70 ns", Result("Ring", 1, roundTrip: 70.4).RoundTrip);
    }

    [Fact]
    public void CoreRoundTrip_APositiveTimeOrNone_NoneOnOneCore()
    {
        var measured = CoreRoundTrip.Measure();

        if (Environment.ProcessorCount < 2)
        {
            Assert.Null(measured);
        }
        else if (measured is { } nanoseconds)
        {
            // A round trip between cores: nanoseconds to microseconds, never nothing. (None when the machine's other work
            // left the two threads on one core for a whole round: a busy test run may do that.)
            Assert.InRange(nanoseconds, 1, 10_000);
        }
    }

    [Fact]
    public void SmallRing_CeilingIsCapacityPerTwoHandOffs_WithinEachLaunch()
    {
        // 16 messages per two hand-offs of 2,000 ns: 4 M msg/s; of 1,000 ns: 8 M. The ratio is taken within each launch.
        var launches = LoopSummary.Merge(
        [
            [new LoopResult("Ring, capacity 16", 3e6, 2.9e6, 3.1e6, 300, 3, 0, HandOffNs: 2_000, Capacity: 16)],
            [new LoopResult("Ring, capacity 16", 6e6, 5.9e6, 6.1e6, 150, 3, 0, HandOffNs: 1_000, Capacity: 16)],
            [new LoopResult("Ring, capacity 16", 2e6, 1.9e6, 2.1e6, 450, 3, 0, HandOffNs: 2_000, Capacity: 16)],
        ]);

        var ring = Assert.Single(launches);
        Assert.Equal(16, ring.Capacity);
        Assert.Equal("2000 [1000, 2000] ns", ring.HandOff);
        Assert.Equal("4.0 M [4.0 M, 8.0 M]", ring.Ceiling);
        Assert.Equal("0.75× [0.50×, 0.75×]", ring.OfCeiling);
        Assert.Equal(4e6, launches[0].Launches[0].CeilingRate);
    }

    [Fact]
    public void SmallRing_NoHandOffOrNoCapacity_NoCeiling()
    {
        var twoCores = LoopSummary.Merge([[new LoopResult("Ring, capacity 16", 3e6, 2.9e6, 3.1e6, 300, 3, 0, RoundTripNs: 70, Capacity: 16)]]);
        var headline = LoopSummary.Merge([[Result("Ring", 1e8)]]);

        Assert.Equal("–", twoCores[0].HandOff);
        Assert.Equal("–", twoCores[0].Ceiling);
        Assert.Equal("–", twoCores[0].OfCeiling);
        Assert.Null(headline[0].Capacity);
        Assert.Null(headline[0].Launches[0].CeilingRate);
    }

    [Fact]
    public void ThreadHandOff_APositiveTimePerHandOff_NoneOnMoreThanOneCore()
    {
        // One round runs on any number of cores (on more than one it times two threads polling side by side). Under a
        // loaded test run a hand-off can wait for the scheduler's next tick, so only "a positive time, within the limit".
        var perHandOff = ThreadHandOff.MeasureOnce(200);
        Assert.NotNull(perHandOff);
        Assert.True(perHandOff > 0);
        Assert.Throws<ArgumentOutOfRangeException>(() => ThreadHandOff.MeasureOnce(1));

        if (Environment.ProcessorCount > 1)
        {
            Assert.Null(ThreadHandOff.Measure());
        }
    }

    [Fact]
    public void Merge_LaunchesThatMeasuredDifferentPaths_Throws()
    {
        Assert.Throws<ArgumentException>(() => LoopSummary.Merge([[Result("Ring", 1)], [Result("Rx", 1)]]));
        Assert.Throws<ArgumentException>(() => LoopSummary.Merge([]));
    }

    [Fact]
    public void LoopLaunch_SurvivesTheJsonALaunchHandsBack()
    {
        var launch = new LoopLaunch([Result("Ring", 1e8, roundTrip: 70)], [new LoopRatio("a ÷ b", [1.0, 1.5])]);

        var back = JsonSerializer.Deserialize<LoopLaunch>(JsonSerializer.Serialize(launch));

        Assert.NotNull(back);
        Assert.Equal(launch.Paths, back.Paths);
        var ratio = Assert.Single(back.HeadToHead);
        Assert.Equal("a ÷ b", ratio.Name);
        Assert.Equal([1.0, 1.5], ratio.Rounds);
    }
}
