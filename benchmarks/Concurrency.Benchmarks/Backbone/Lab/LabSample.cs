using System.Globalization;
using Concurrency.Benchmarks.Backbone.Reporting;

namespace Concurrency.Benchmarks.Backbone.Lab;

/// <summary>
/// Several measurements of one quantity, published as the median with the lowest and highest (never the best run alone).
/// </summary>
public sealed record LabSample(double Median, double Low, double High, int Count)
{
    /// <summary>Runs <paramref name="measure"/> <paramref name="runs"/> times and keeps every value.</summary>
    public static LabSample Repeat(int runs, Func<double> measure)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(runs, 1);
        ArgumentNullException.ThrowIfNull(measure);
        return Of([.. Enumerable.Range(0, runs).Select(_ => measure())]);
    }

    /// <summary>The median, lowest and highest of <paramref name="values"/>.</summary>
    public static LabSample Of(IReadOnlyList<double> values)
    {
        ArgumentNullException.ThrowIfNull(values);
        if (values.Count == 0)
        {
            throw new ArgumentException("No values.", nameof(values));
        }

        return new LabSample(Bootstrap.MedianOf([.. values]), values.Min(), values.Max(), values.Count);
    }

    /// <summary>"median [low, high]" in <paramref name="format"/>; just the median when there was one value.</summary>
    public string Format(string format = "N0")
        => Count == 1
            ? Median.ToString(format, CultureInfo.InvariantCulture)
            : string.Create(CultureInfo.InvariantCulture, $"{Median.ToString(format, CultureInfo.InvariantCulture)} [{Low.ToString(format, CultureInfo.InvariantCulture)}, {High.ToString(format, CultureInfo.InvariantCulture)}]");

    /// <summary>Whether this sample's range lies wholly above <paramref name="other"/>'s: the only case we call "faster" or "more".</summary>
    public bool Above(LabSample other) => Low > other.High;
}
