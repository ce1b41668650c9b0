using System.Globalization;
using Concurrency.Benchmarks.Backbone.Reporting;

namespace Concurrency.Benchmarks.HandOff;

/// <summary>
/// One contender over several launches of the plain loop: the median of the launches' medians with the lowest and highest
/// launch median, the median CPU per message, and its ratio to a reference path (the ratio of medians within each launch,
/// then the median of the launches, with the lowest and highest). With one launch the brackets are that launch's runs:
/// the lowest and highest run, and for a ratio the extremes divided (lowest ÷ highest, highest ÷ lowest).
/// </summary>
public sealed record LoopSummary(
    string Path,
    double Median,
    double Lowest,
    double Highest,
    double CpuPerMessage,
    int FewestWarmupRuns,
    int MostWarmupRuns,
    long MostCompiledDuringRuns,
    IReadOnlyList<LoopResult> Launches)
{
    public string Rate => RateRange(Median, Lowest, Highest);

    /// <summary>The ring's capacity for one of the small rings; null for a headline path.</summary>
    public int? Capacity => Launches[0].Capacity;

    /// <summary>The cores' cache-line round trip around this path's runs: the median of the launches [lowest, highest], or "–" on one core.</summary>
    public string RoundTrip => Spread(Launches.Select(l => l.RoundTripNs), Whole, " ns");

    /// <summary>The one core's thread hand-off around this path's runs: the median of the launches [lowest, highest], or "–" on more cores.</summary>
    public string HandOff => Spread(Launches.Select(l => l.HandOffNs), Whole, " ns");

    /// <summary>A small ring's one-core ceiling (<see cref="LoopResult.CeilingRate"/>): the median of the launches [lowest, highest], or "–".</summary>
    public string Ceiling => Spread(Launches.Select(l => l.CeilingRate), Millions, string.Empty);

    /// <summary>The rate over the ceiling, within each launch, then the median of the launches [lowest, highest], or "–".</summary>
    public string OfCeiling => Spread(
        Launches.Select(l => l.CeilingRate is { } ceiling ? l.Median / ceiling : (double?)null),
        ratio => string.Create(CultureInfo.InvariantCulture, $"{ratio:0.00}×"),
        string.Empty);

    public string WarmupRuns => FewestWarmupRuns == MostWarmupRuns
        ? FewestWarmupRuns.ToString(CultureInfo.InvariantCulture)
        : string.Create(CultureInfo.InvariantCulture, $"{FewestWarmupRuns}–{MostWarmupRuns}");

    /// <summary>Folds each path's results from every launch; every launch must have measured the same paths.</summary>
    /// <exception cref="ArgumentException">No launch, or launches that measured different paths.</exception>
    public static IReadOnlyList<LoopSummary> Merge(IReadOnlyList<IReadOnlyList<LoopResult>> launches)
    {
        ArgumentNullException.ThrowIfNull(launches);
        if (launches.Count == 0)
        {
            throw new ArgumentException("No launches.", nameof(launches));
        }

        var paths = launches[0].Select(r => r.Path).ToArray();
        if (launches.Any(l => !l.Select(r => r.Path).SequenceEqual(paths)))
        {
            throw new ArgumentException("The launches measured different paths.", nameof(launches));
        }

        return [.. paths.Select((path, p) => Fold(path, [.. launches.Select(l => l[p])]))];
    }

    /// <summary>This path's rate over <paramref name="reference"/>'s: "MEDIAN× [LOWEST, HIGHEST]".</summary>
    /// <exception cref="ArgumentException">The two summaries come from different numbers of launches.</exception>
    public string Times(LoopSummary reference)
    {
        ArgumentNullException.ThrowIfNull(reference);
        if (reference.Launches.Count != Launches.Count)
        {
            throw new ArgumentException("The two paths were measured in different launches.", nameof(reference));
        }

        if (Launches.Count == 1)
        {
            return Ratio(Median / reference.Median, Lowest / reference.Highest, Highest / reference.Lowest);
        }

        List<double> ratios = [.. Launches.Select((launch, i) => launch.Median / reference.Launches[i].Median)];
        var median = Bootstrap.MedianOf(ratios); // sorts the list
        return Ratio(median, ratios[0], ratios[^1]);
    }

    /// <summary>"MEDIAN M [LOWEST M, HIGHEST M]", in millions of messages a second.</summary>
    internal static string RateRange(double median, double lowest, double highest)
        => string.Create(CultureInfo.InvariantCulture, $"{Millions(median)} [{Millions(lowest)}, {Millions(highest)}]");

    // "MEDIAN [LOWEST, HIGHEST]UNIT" over the launches that have a value, "VALUEUNIT" for one, "–" for none.
    private static string Spread(IEnumerable<double?> values, Func<double, string> format, string unit)
    {
        List<double> measured = [.. values.Where(v => v is not null).Select(v => v!.Value)];
        if (measured.Count == 0)
        {
            return "–";
        }

        var median = Bootstrap.MedianOf(measured); // sorts the list
        return measured.Count == 1
            ? format(median) + unit
            : $"{format(median)} [{format(measured[0])}, {format(measured[^1])}]{unit}";
    }

    private static string Whole(double value) => string.Create(CultureInfo.InvariantCulture, $"{value:0}");

    private static string Millions(double rate) => string.Create(CultureInfo.InvariantCulture, $"{rate / 1e6:0.0} M");

    /// <summary>"MEDIAN× [LOWEST, HIGHEST]", two decimals.</summary>
    internal static string Ratio(double median, double lowest, double highest)
        => string.Create(CultureInfo.InvariantCulture, $"{median:0.00}× [{lowest:0.00}, {highest:0.00}]");

    private static LoopSummary Fold(string path, IReadOnlyList<LoopResult> launches)
    {
        if (launches.Count == 1)
        {
            var only = launches[0];
            return new LoopSummary(path, only.Median, only.Lowest, only.Highest, only.CpuPerMessage, only.WarmupRuns, only.WarmupRuns, only.CompiledDuringRuns, launches);
        }

        List<double> medians = [.. launches.Select(l => l.Median)];
        var median = Bootstrap.MedianOf(medians); // sorts the list
        return new LoopSummary(
            path,
            median,
            medians[0],
            medians[^1],
            Bootstrap.MedianOf([.. launches.Select(l => l.CpuPerMessage)]),
            launches.Min(l => l.WarmupRuns),
            launches.Max(l => l.WarmupRuns),
            launches.Max(l => l.CompiledDuringRuns),
            launches);
    }
}
