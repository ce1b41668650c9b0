
namespace Concurrency.Benchmarks.Backbone.Reporting;

/// <summary>
/// Medians and their 95% intervals from the measured iterations of every launch, by a deterministic hierarchical
/// percentile bootstrap: each replicate draws launches with replacement, then iterations with replacement within each drawn
/// launch, and takes the median of what it drew. Launches are resampled first because a process's thread placement and code
/// layout move all its iterations together; resampling iterations alone would make the interval too narrow. A fixed seed,
/// reset for every estimate, makes the same results give the same intervals on any machine and in any order.
/// </summary>
public static class Bootstrap
{
    public const int Replicates = 2000;
    public const ulong Seed = 0x2025_1123;

    /// <summary>How the report describes this method.</summary>
    public const string Method =
        "hierarchical percentile bootstrap (2,000 replicates, each resampling launches with replacement and then iterations " +
        "within each drawn launch; 2.5th and 97.5th percentiles; fixed seed, so the same results always give the same intervals)";

    /// <summary>The same, in a few words, for the README table.</summary>
    public const string ShortMethod = "hierarchical bootstrap over launches, then iterations; fixed seed";

    /// <summary>The median of every iteration of every launch, with its interval.</summary>
    public static Estimate Median(IReadOnlyList<IReadOnlyList<double>> launches)
    {
        var data = NonEmpty(launches);
        var random = new SplitMix64(Seed);
        var buffer = new List<double>();
        var replicates = new double[Replicates];
        for (var r = 0; r < Replicates; r++)
        {
            replicates[r] = ResampledMedian(data, ref random, buffer);
        }

        return Interval(PooledMedian(data), replicates);
    }

    /// <summary>
    /// The ratio of two medians (<paramref name="numerator"/> over <paramref name="denominator"/>), each side resampled
    /// independently in every replicate, since they came from different processes.
    /// </summary>
    public static Estimate RatioOfMedians(IReadOnlyList<IReadOnlyList<double>> numerator, IReadOnlyList<IReadOnlyList<double>> denominator)
    {
        var top = NonEmpty(numerator);
        var bottom = NonEmpty(denominator);
        var random = new SplitMix64(Seed);
        var buffer = new List<double>();
        var replicates = new double[Replicates];
        for (var r = 0; r < Replicates; r++)
        {
            var a = ResampledMedian(top, ref random, buffer);
            replicates[r] = a / ResampledMedian(bottom, ref random, buffer);
        }

        return Interval(PooledMedian(top) / PooledMedian(bottom), replicates);
    }

    /// <summary>The median of a sorted-in-place list (the mean of the middle two for an even count).</summary>
    public static double MedianOf(List<double> values)
    {
        values.Sort();
        var middle = values.Count / 2;
        return values.Count % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
    }

    private static List<IReadOnlyList<double>> NonEmpty(IReadOnlyList<IReadOnlyList<double>> launches)
    {
        var kept = launches.Where(l => l.Count > 0).ToList();
        return kept.Count > 0 ? kept : throw new ArgumentException("No measurements to estimate from.", nameof(launches));
    }

    private static double PooledMedian(List<IReadOnlyList<double>> launches) => MedianOf([.. launches.SelectMany(l => l)]);

    private static double ResampledMedian(List<IReadOnlyList<double>> launches, ref SplitMix64 random, List<double> buffer)
    {
        buffer.Clear();
        for (var l = 0; l < launches.Count; l++)
        {
            var launch = launches[random.NextIndex(launches.Count)];
            for (var i = 0; i < launch.Count; i++)
            {
                buffer.Add(launch[random.NextIndex(launch.Count)]);
            }
        }

        return MedianOf(buffer);
    }

    private static Estimate Interval(double point, double[] replicates)
    {
        Array.Sort(replicates);
        return new Estimate(point, Percentile(replicates, 0.025), Percentile(replicates, 0.975));
    }

    /// <summary>Linear interpolation between order statistics (the usual "type 7" definition).</summary>
    private static double Percentile(double[] sorted, double p)
    {
        var position = p * (sorted.Length - 1);
        var below = (int)Math.Floor(position);
        var above = Math.Min(below + 1, sorted.Length - 1);
        return sorted[below] + ((position - below) * (sorted[above] - sorted[below]));
    }
}
