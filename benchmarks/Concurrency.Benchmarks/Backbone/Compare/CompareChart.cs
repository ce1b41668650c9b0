using System.Globalization;
using ScottPlot;

namespace Concurrency.Benchmarks.Backbone.Compare;

/// <summary>
/// The compare chart: one row per figure, B ÷ A on a log scale (so 2× and ½× lie equally far from 1) as a dot with its
/// interval as a line; rows beyond the noise in colour, the rest grey.
/// </summary>
internal static class CompareChart
{
    private static readonly Color Beyond = new(0x1F, 0x77, 0xB4);
    private static readonly Color Within = Colors.Gray;

    public static void Ratios(string path, string title, IReadOnlyList<ComparedFigure> figures)
    {
        if (figures.Count == 0)
        {
            return;
        }

        var plot = new Plot();
        for (var i = 0; i < figures.Count; i++)
        {
            var figure = figures[i];
            var y = figures.Count - 1 - i;
            var colour = figure.BeyondNoise ? Beyond : Within;
            var low = Log(figure.Ratio.Low);
            var high = Log(figure.Ratio.High);
            if (low != high)
            {
                var interval = plot.Add.Line(low, y, high, y);
                interval.Color = colour;
                interval.LineWidth = 2;
            }

            var dot = plot.Add.Marker(Log(figure.Ratio.Point), y);
            dot.Color = colour;
            dot.Size = 8;
        }

        var one = plot.Add.VerticalLine(0);
        one.Color = Colors.Black;
        plot.Axes.Left.SetTicks(
            [.. figures.Select((_, i) => (double)(figures.Count - 1 - i))],
            [.. figures.Select(f => $"{f.A.Scenario}, {f.A.Cores}c: {f.Name}, {f.A.Metric}")]);
        double[] ratios = [0.25, 0.5, 0.8, 1, 1.25, 2, 4];
        plot.Axes.Bottom.SetTicks([.. ratios.Select(Log)], [.. ratios.Select(r => r.ToString("0.##", CultureInfo.InvariantCulture) + "×")]);
        plot.XLabel("B ÷ A (log scale); a line is the 95% interval");
        plot.Title(title);
        plot.SavePng(path, 1400, 140 + (26 * figures.Count));
    }

    /// <summary>log10 of a ratio, kept finite for the chart (an open-ended interval is drawn to 100× or 1/100×).</summary>
    private static double Log(double ratio) => Math.Log10(Math.Clamp(double.IsFinite(ratio) ? ratio : 100, 0.01, 100));
}
