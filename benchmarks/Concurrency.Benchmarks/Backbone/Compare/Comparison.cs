using System.Globalization;
using Concurrency.Benchmarks.Backbone.Reporting;

namespace Concurrency.Benchmarks.Backbone.Compare;

/// <summary>
/// Two sides' results matched figure by figure (scenario, contender, conditions, phase, cores, metric; the newest where a
/// side has one twice), each pair as B ÷ A with its 95% interval and a verdict. The interval comes from the samples each
/// figure was folded from (each launch's value): a percentile bootstrap of the ratio of medians, drawing each side's
/// launches independently (<see cref="Bootstrap.RatioOfMedians"/>, fixed seed); where a side has one sample, from the
/// figures' own intervals (B's low ÷ A's high to B's high ÷ A's low); where both have one, there is no interval.
/// </summary>
public static class Comparison
{
    /// <summary>The verdict of a pair whose interval holds 1, or has none.</summary>
    public const string WithinNoise = "within noise";

    public const string NoInterval = "one sample each, no interval";

    /// <summary>Every figure both sides measured, paired, in scenario, metric and contender order.</summary>
    public static IReadOnlyList<ComparedFigure> Pair(IEnumerable<ResultSet> a, IEnumerable<ResultSet> b)
    {
        var before = Newest(a);
        var after = Newest(b);
        return [.. before
            .Where(p => after.ContainsKey(p.Key))
            .Select(p => Compare(p.Value, after[p.Key]))
            .OrderBy(f => f.A.Scenario, StringComparer.Ordinal)
            .ThenBy(f => f.A.Cores)
            .ThenBy(f => f.A.Metric, NaturalOrder.Instance)
            .ThenBy(f => f.A.Contender, StringComparer.Ordinal)
            .ThenBy(f => f.A.Conditions, StringComparer.Ordinal)];
    }

    /// <summary>The keys only one side has: (only in A, only in B).</summary>
    public static (int OnlyA, int OnlyB) Unpaired(IEnumerable<ResultSet> a, IEnumerable<ResultSet> b)
    {
        var before = Newest(a).Keys.ToHashSet();
        var after = Newest(b).Keys.ToHashSet();
        return (before.Count(k => !after.Contains(k)), after.Count(k => !before.Contains(k)));
    }

    /// <summary>One pair: B ÷ A, its interval, and whether the difference is beyond the noise.</summary>
    public static ComparedFigure Compare(Measurement a, Measurement b)
    {
        ArgumentNullException.ThrowIfNull(a);
        ArgumentNullException.ThrowIfNull(b);
        var point = b.Median / a.Median;
        Estimate ratio;
        if (a.Samples.Count > 1 && b.Samples.Count > 1)
        {
            ratio = Bootstrap.RatioOfMedians(Launches(b), Launches(a)) with { Point = point };
        }
        else
        {
            ratio = new Estimate(point, b.Low / a.High, b.High / a.Low);
        }

        string verdict;
        if (a.Low == a.High && b.Low == b.High)
        {
            verdict = NoInterval;
        }
        else if (ratio.Low > 1 || ratio.High < 1)
        {
            var higher = ratio.Low > 1;
            verdict = higher == b.HigherIsBetter ? "beyond noise: B better" : "beyond noise: B worse";
        }
        else
        {
            verdict = WithinNoise;
        }

        return new ComparedFigure(a, b, ratio, verdict);
    }

    private static IReadOnlyList<IReadOnlyList<double>> Launches(Measurement m) => [.. m.Samples.Select(s => (IReadOnlyList<double>)[s])];

    private static Dictionary<(string, string, string, Phase, int, string), Measurement> Newest(IEnumerable<ResultSet> sets)
        => ResultSet.Newest(sets.Select(s => (Tag: 0, Set: s))).ToDictionary(x => x.Measurement.Key, x => x.Measurement);
}

/// <summary>One figure on both sides: B ÷ A with its interval, and the verdict.</summary>
public sealed record ComparedFigure(Measurement A, Measurement B, Estimate Ratio, string Verdict)
{
    /// <summary>Gets whether the difference is beyond the noise.</summary>
    public bool BeyondNoise => Verdict.StartsWith("beyond", StringComparison.Ordinal);

    /// <summary>Gets the row's name: "Ring (Capacity=16)".</summary>
    public string Name => A.Conditions.Length == 0 ? A.Contender : $"{A.Contender} ({A.Conditions})";

    /// <summary>Gets the ratio as the table prints it: "1.07× [0.98–1.15]", or "1.07×" with no interval.</summary>
    public string FormatRatio() => Verdict == Comparison.NoInterval
        ? string.Create(CultureInfo.InvariantCulture, $"{Ratio.Point:0.00}×")
        : string.Create(CultureInfo.InvariantCulture, $"{Ratio.Point:0.00}× [{Finite(Ratio.Low)}–{Finite(Ratio.High)}]");

    private static string Finite(double value) => double.IsFinite(value) ? value.ToString("0.00", CultureInfo.InvariantCulture) : "∞";
}
