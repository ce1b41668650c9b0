using System.Globalization;

namespace Concurrency.Benchmarks.Backbone.Reporting;

/// <summary>The report's table cells, shared by REPORT.md and the README table so both read the same.</summary>
public static class Cells
{
    public const string None = "-";

    /// <summary>Gets the fewest measured iterations either side of a comparison needs before the report gives a verdict.</summary>
    public const int MinimumSamples = 3;

    /// <summary>Gets the shortest measured iteration the report accepts without a note.</summary>
    public const double ShortIterationMilliseconds = 100;

    /// <summary>Median msg/s and its interval, e.g. "63.7 M [61.2–65.0]".</summary>
    public static string Rate(BenchmarkResult? result) => result is null ? None : result.Throughput.FormatRate();

    public static string Cpu(BenchmarkResult? result)
        => result?.CpuNanosecondsPerMessage is { } value ? value.ToString(value >= 100 ? "0" : "0.0", CultureInfo.InvariantCulture) : None;

    /// <summary>The row against a peer on the same job: ratio of medians, its interval, and a verdict.</summary>
    public static string Ratio(BenchmarkResult? row, Peer peer, IEnumerable<BenchmarkResult> results)
    {
        if (row is null || peer.Find(row, results) is not { } reference)
        {
            return None;
        }

        if (reference == row)
        {
            return "reference";
        }

        var ratio = Bootstrap.RatioOfMedians(row.Launches, reference.Launches);
        var verdict = Math.Min(row.Samples, reference.Samples) < MinimumSamples ? "too few samples" : row.Throughput.VerdictAgainst(reference.Throughput);
        return $"{ratio.FormatRatio()} {verdict}";
    }

    /// <summary>The row's median as a percentage of a ceiling's on the same job.</summary>
    public static string PercentOf(BenchmarkResult? row, string ceiling, IEnumerable<BenchmarkResult> results)
        => row is not null && Ceilings.Find(ceiling, row.Job, results) is { } limit
            ? (100 * row.Throughput.Point / limit.Throughput.Point).ToString("0.0", CultureInfo.InvariantCulture)
            : None;

    public static string Number(double? value, string format) => value is { } v ? v.ToString(format, CultureInfo.InvariantCulture) : None;

    /// <summary>
    /// The row's warnings across jobs: a ceiling it beats, e.g. "⚠ beats its ceiling (RawRing at 2 cores)", and a measured
    /// iteration shorter than 100 ms (BenchmarkDotNet sized iterations for about 250 ms from its pilot, so one this short
    /// means the case ran far faster than while a busy machine slowed the pilot).
    /// </summary>
    public static string Notes(IEnumerable<BenchmarkResult> rowAcrossJobs, IEnumerable<BenchmarkResult> results)
    {
        var rows = rowAcrossJobs.ToList();
        var beaten = rows.SelectMany(r => Ceilings.Beaten(r, results).Select(c => $"{c} at {r.Job}")).ToList();
        var notes = new List<string>();
        if (beaten.Count > 0)
        {
            notes.Add($"{Ceilings.Flag} ({string.Join("; ", beaten)})");
        }

        var shortest = rows.MinBy(r => r.ShortestIterationMilliseconds);
        if (shortest is { ShortestIterationMilliseconds: < ShortIterationMilliseconds })
        {
            notes.Add(string.Create(CultureInfo.InvariantCulture, $"⚠ an iteration of {shortest.ShortestIterationMilliseconds:0} ms at {shortest.Job}"));
        }

        return string.Join("; ", notes);
    }
}
