using System.Globalization;
using ScottPlot;

namespace Concurrency.Benchmarks.Backbone.Latency;

/// <summary>
/// The percentile-distribution chart of one scenario at one load, as HdrHistogram's plots draw it: the percentile on a
/// log scale of 1 ÷ (1 − p) (so 90%, 99%, 99.9%, … are evenly spaced and the tail gets the room), the latency on a log
/// scale, one line per contender; ours with filled markers, the peers' with open ones.
/// </summary>
internal static class LatencyChart
{
    /// <summary>Where the maximum is drawn: half a decade right of the last percentile level.</summary>
    private const double MaxPosition = 5.5;

    /// <summary>Writes the chart to <paramref name="path"/> (PNG); nothing when there is no series.</summary>
    public static void Distribution(string path, string title, IReadOnlyList<(string Name, ContenderFamily Family, IReadOnlyList<double> Curve)> series)
    {
        if (series.Count == 0)
        {
            return;
        }

        var plot = new Plot();
        var palette = new ScottPlot.Palettes.Category20();
        double[] xs = [.. LatencyDistribution.CurveLevels.Select(Position)];
        for (var i = 0; i < series.Count; i++)
        {
            var (name, family, curve) = series[i];
            var line = plot.Add.Scatter(xs, [.. curve.Select(v => Math.Log10(Math.Max(v, 0.01)))]);
            line.LegendText = name;
            line.Color = palette.GetColor(i);
            line.MarkerShape = family == ContenderFamily.Ours ? MarkerShape.FilledCircle : MarkerShape.OpenSquare;
            line.MarkerSize = 6;
            line.LineWidth = 2;
        }

        (double At, string Label)[] ticks = [(0, "0%"), (Position(50), "50%"), (1, "90%"), (2, "99%"), (3, "99.9%"), (4, "99.99%"), (5, "99.999%"), (MaxPosition, "max")];
        plot.Axes.Bottom.SetTicks([.. ticks.Select(t => t.At)], [.. ticks.Select(t => t.Label)]);
        var values = series.SelectMany(s => s.Curve).Where(v => v > 0).DefaultIfEmpty(1).ToList();
        var low = (int)Math.Floor(Math.Log10(values.Min()));
        var high = (int)Math.Ceiling(Math.Log10(values.Max()));
        var decades = Enumerable.Range(low, Math.Max(high - low, 0) + 1).ToArray();
        plot.Axes.Left.SetTicks([.. decades.Select(d => (double)d)], [.. decades.Select(d => Math.Pow(10, d).ToString(d >= 0 ? "N0" : "0.##", CultureInfo.InvariantCulture))]);
        plot.XLabel("percentile (log scale of 1 ÷ (1 − p))");
        plot.YLabel("latency from due time, µs (log scale)");
        plot.Title(title);
        plot.ShowLegend(Alignment.UpperLeft);
        plot.SavePng(path, 1100, 650);
    }

    /// <summary>A percentile level's place on the x axis: log10(1 ÷ (1 − p)); the maximum (100) at <see cref="MaxPosition"/>.</summary>
    private static double Position(double percentile) => percentile >= 100 ? MaxPosition : Math.Log10(100 / (100 - percentile));
}
