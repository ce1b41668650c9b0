using System.Globalization;
using HdrHistogram;

namespace Concurrency.Benchmarks.Backbone.Latency;

/// <summary>
/// The latencies of one run, merged from every consumer's recorder, as the tables print them (microseconds): the
/// percentiles the command reports and the curve its charts draw, at <see cref="CurveLevels"/>.
/// </summary>
/// <param name="Count">How many messages were timed.</param>
/// <param name="Curve">The latency at each of <see cref="CurveLevels"/>, in µs.</param>
public sealed record LatencyDistribution(long Count, double P50, double P90, double P99, double P999, double P9999, double Max, IReadOnlyList<double> Curve)
{
    /// <summary>The percentiles the chart draws; 100 is the maximum.</summary>
    public static readonly IReadOnlyList<double> CurveLevels = [0, 25, 50, 75, 90, 95, 99, 99.5, 99.9, 99.95, 99.99, 99.995, 99.999, 100];

    /// <summary>The figures the tables give, by the names the result sets file them under ("p99 µs at 50%").</summary>
    public static readonly IReadOnlyList<(string Name, Func<LatencyDistribution, double> Of)> Figures =
    [
        ("p50", d => d.P50), ("p90", d => d.P90), ("p99", d => d.P99), ("p99.9", d => d.P999), ("p99.99", d => d.P9999), ("max", d => d.Max),
    ];

    /// <summary>The metric a figure at a load is filed under: "p99 µs at 50%", "max µs at 10,000 msg/s".</summary>
    public static string Metric(string figure, string load) => $"{figure} µs at {load}";

    /// <summary>The recorders of one run, added into one histogram, read out.</summary>
    /// <exception cref="ArgumentException">No recorder, or nothing recorded.</exception>
    public static LatencyDistribution Merge(IEnumerable<HistogramBase> recorders)
    {
        ArgumentNullException.ThrowIfNull(recorders);
        var merged = new LongHistogram(LatencyRecorder.LongestNanoseconds, 3);
        foreach (var recorder in recorders)
        {
            merged.Add(recorder);
        }

        if (merged.TotalCount == 0)
        {
            throw new ArgumentException("No latency was recorded.", nameof(recorders));
        }

        double Microseconds(double percentile) => (percentile >= 100 ? merged.GetMaxValue() : merged.GetValueAtPercentile(percentile)) / 1_000.0;
        return new LatencyDistribution(
            merged.TotalCount,
            Microseconds(50),
            Microseconds(90),
            Microseconds(99),
            Microseconds(99.9),
            Microseconds(99.99),
            Microseconds(100),
            [.. CurveLevels.Select(Microseconds)]);
    }

    /// <summary>A latency in µs as the tables print it: three significant digits, no more than two decimals.</summary>
    public static string Format(double microseconds) => microseconds switch
    {
        < 10 => microseconds.ToString("0.00", CultureInfo.InvariantCulture),
        < 100 => microseconds.ToString("0.0", CultureInfo.InvariantCulture),
        _ => microseconds.ToString("N0", CultureInfo.InvariantCulture),
    };
}
