using Concurrency.Benchmarks.Backbone.Reporting;

namespace Concurrency.Benchmarks.Tests;

/// <summary>The report's intervals: reproducible, around their median, and for ratios around the true ratio.</summary>
public sealed class BootstrapTests
{
    [Fact]
    public void Median_SameMeasurementsTwice_GivesTheSameInterval()
    {
        var launches = Launches(center: 100, spread: 5, seed: 1);

        var first = Bootstrap.Median(launches);
        var second = Bootstrap.Median(Launches(center: 100, spread: 5, seed: 1));

        Assert.Equal(first, second);
    }

    [Fact]
    public void Median_NoisyLaunches_IntervalContainsThePooledMedianAndIsNotEmpty()
    {
        var launches = Launches(center: 100, spread: 5, seed: 2);

        var estimate = Bootstrap.Median(launches);

        Assert.Equal(Bootstrap.MedianOf([.. launches.SelectMany(l => l)]), estimate.Point);
        Assert.InRange(estimate.Point, estimate.Low, estimate.High);
        Assert.True(estimate.High > estimate.Low);
        Assert.InRange(estimate.Point, 95, 105);
    }

    [Fact]
    public void Median_LaunchesThatDisagree_IntervalWiderThanLaunchesThatAgree()
    {
        // The same noise within each process; only the process-to-process offsets differ. Resampling launches must show them.
        IReadOnlyList<IReadOnlyList<double>> apart = [Launch(90, 1, 10), Launch(100, 1, 11), Launch(110, 1, 12)];
        IReadOnlyList<IReadOnlyList<double>> together = [Launch(100, 1, 10), Launch(100, 1, 11), Launch(100, 1, 12)];

        Assert.True(Width(Bootstrap.Median(apart)) > 3 * Width(Bootstrap.Median(together)));
    }

    [Fact]
    public void RatioOfMedians_TwiceAsFast_IntervalContainsTwoAndExcludesOne()
    {
        var fast = Launches(center: 200, spread: 6, seed: 3);
        var slow = Launches(center: 100, spread: 3, seed: 4);

        var ratio = Bootstrap.RatioOfMedians(fast, slow);

        Assert.InRange(2.0, ratio.Low, ratio.High);
        Assert.True(ratio.Low > 1);
        Assert.Equal(ratio, Bootstrap.RatioOfMedians(fast, slow));
        Assert.Equal("faster", Bootstrap.Median(fast).VerdictAgainst(Bootstrap.Median(slow)));
    }

    [Fact]
    public void VerdictAgainst_OverlappingIntervals_WithinNoise()
    {
        var a = new Estimate(100, 95, 105);
        var b = new Estimate(103, 99, 110);

        Assert.Equal("within noise", a.VerdictAgainst(b));
        Assert.Equal("slower", new Estimate(80, 75, 85).VerdictAgainst(b));
    }

    private static double Width(Estimate estimate) => estimate.High - estimate.Low;

    /// <summary>Three launches of 20 iterations around <paramref name="center"/>, from a fixed seed.</summary>
    private static IReadOnlyList<IReadOnlyList<double>> Launches(double center, double spread, ulong seed)
        => [Launch(center, spread, seed), Launch(center, spread, seed + 100), Launch(center, spread, seed + 200)];

    /// <summary>20 iterations spread evenly at random within ±<paramref name="spread"/> of <paramref name="center"/>.</summary>
    private static IReadOnlyList<double> Launch(double center, double spread, ulong seed)
    {
        var random = new SplitMix64(seed);
        return [.. Enumerable.Range(0, 20).Select(_ => center + (spread * ((random.Next() % 2001 / 1000.0) - 1)))];
    }
}
