using ScottPlot;
using ScottPlot.TickGenerators;

namespace Concurrency.Benchmarks.Reporting;

/// <summary>PNG charts with ScottPlot: throughput on a log scale, as bars (one core count) or lines against cores.</summary>
public static class Charts
{
    public static void Bars(string path, string title, IReadOnlyList<(string Label, double MessagesPerSecond)> rows)
    {
        var plot = new Plot();
        var bars = rows.Select((row, i) => new Bar { Position = i, Value = Math.Log10(Math.Max(row.MessagesPerSecond, 1)) }).ToList();
        plot.Add.Bars(bars);
        plot.Axes.Bottom.SetTicks([.. rows.Select((_, i) => (double)i)], [.. rows.Select(r => r.Label)]);
        plot.Axes.Bottom.TickLabelStyle.Rotation = 45;
        plot.Axes.Bottom.TickLabelStyle.Alignment = Alignment.MiddleLeft;
        plot.Axes.Bottom.MinimumSize = 160;
        LogAxis(plot);
        plot.Title(title);
        plot.Axes.Margins(bottom: 0);
        plot.SavePng(path, 1000, 650);
    }

    public static void Lines(string path, string title, IReadOnlyDictionary<string, IReadOnlyList<(int Cores, double MessagesPerSecond)>> series)
    {
        var plot = new Plot();
        foreach (var (name, points) in series)
        {
            var scatter = plot.Add.Scatter(
                points.Select(p => (double)p.Cores).ToArray(),
                points.Select(p => Math.Log10(Math.Max(p.MessagesPerSecond, 1))).ToArray());
            scatter.LegendText = name;
        }

        var cores = series.Values.SelectMany(p => p).Select(p => p.Cores).Distinct().Order().ToArray();
        plot.Axes.Bottom.SetTicks([.. cores.Select(c => (double)c)], [.. cores.Select(c => c.ToString(System.Globalization.CultureInfo.InvariantCulture))]);
        plot.Axes.Bottom.Label.Text = "cores";
        LogAxis(plot);
        plot.ShowLegend(Edge.Right);
        plot.Title(title);
        plot.SavePng(path, 1100, 650);
    }

    private static void LogAxis(Plot plot)
    {
        plot.Axes.Left.TickGenerator = new NumericAutomatic
        {
            MinorTickGenerator = new LogMinorTickGenerator(),
            IntegerTicksOnly = true,
            LabelFormatter = y => Math.Pow(10, y).ToString("N0", System.Globalization.CultureInfo.InvariantCulture),
        };
        plot.Axes.Left.Label.Text = "messages per second (log scale)";
    }
}
