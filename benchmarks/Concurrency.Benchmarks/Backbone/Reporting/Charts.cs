using System.Globalization;
using ScottPlot;
using ScottPlot.TickGenerators;

namespace Concurrency.Benchmarks.Backbone.Reporting;

/// <summary>
/// PNG charts with ScottPlot: throughput on a log scale (values plotted as log10, labelled back in msg/s, since the cases
/// span three orders of magnitude), as horizontal bars at one core count or as lines against cores.
/// </summary>
public static class Charts
{
    private static readonly Color Ceiling = Colors.Gray;
    private static readonly Color Rx = new(0xD6, 0x27, 0x28);
    private static readonly Color Dataflow = new(0x2C, 0xA0, 0x2C);
    private static readonly Color ActorSystem = new(0x94, 0x67, 0xBD);
    private static readonly Color Ours = new(0x1F, 0x77, 0xB4);

    /// <summary>One bar per case, in the order given (top first), coloured by family: ceilings grey, Rx and TPL Dataflow as peers, ours blue.</summary>
    public static void Bars(string path, string title, IReadOnlyList<(string Label, double MessagesPerSecond, ContenderFamily Family)> rows)
    {
        if (rows.Count == 0)
        {
            return;
        }

        var plot = new Plot();
        var logs = rows.Select(r => Math.Log10(Math.Max(r.MessagesPerSecond, 1))).ToList();
        var floor = Math.Floor(logs.Min());
        var bars = rows.Select((row, i) => new Bar
        {
            Position = rows.Count - 1 - i,
            ValueBase = floor,
            Value = logs[i],
            FillColor = Colour(row.Family),
            Label = row.MessagesPerSecond.ToString("N0", CultureInfo.InvariantCulture),
        }).ToList();
        var barPlot = plot.Add.Bars(bars);
        barPlot.Horizontal = true;
        plot.Axes.Left.SetTicks([.. rows.Select((_, i) => (double)(rows.Count - 1 - i))], [.. rows.Select(r => r.Label)]);
        plot.Axes.SetLimitsX(floor, Math.Ceiling(logs.Max()) + 0.3);
        LogTicks(plot.Axes.Bottom);
        plot.Legend.ManualItems.AddRange([
            new LegendItem { LabelText = "ceiling", FillColor = Ceiling },
            new LegendItem { LabelText = "Rx (peer)", FillColor = Rx },
            new LegendItem { LabelText = "TPL Dataflow (peer)", FillColor = Dataflow },
            new LegendItem { LabelText = "Concurrency (ours)", FillColor = Ours },
        ]);
        plot.ShowLegend(Alignment.LowerRight);
        plot.Title(title);
        plot.SavePng(path, 1100, 120 + (36 * rows.Count));
    }

    /// <summary>One line per case: msg/s at each core count measured.</summary>
    public static void Lines(string path, string title, IReadOnlyDictionary<string, IReadOnlyList<(int Cores, double MessagesPerSecond)>> series)
    {
        if (series.Count == 0)
        {
            return;
        }

        var plot = new Plot();
        var palette = new ScottPlot.Palettes.Category20();
        var shapes = new[] { MarkerShape.FilledCircle, MarkerShape.FilledSquare, MarkerShape.FilledTriangleUp, MarkerShape.FilledDiamond };
        var index = 0;
        foreach (var (name, points) in series)
        {
            var scatter = plot.Add.Scatter(
                points.Select(p => (double)p.Cores).ToArray(),
                points.Select(p => Math.Log10(Math.Max(p.MessagesPerSecond, 1))).ToArray());
            scatter.LegendText = name;
            scatter.Color = palette.GetColor(index);
            scatter.MarkerShape = shapes[index % shapes.Length];
            scatter.MarkerSize = 8;
            scatter.LineWidth = 2;
            index++;
        }

        var cores = series.Values.SelectMany(p => p).Select(p => p.Cores).Distinct().Order().ToArray();
        plot.Axes.Bottom.SetTicks([.. cores.Select(c => (double)c)], [.. cores.Select(c => c.ToString(CultureInfo.InvariantCulture))]);
        plot.Axes.Bottom.Label.Text = "cores";
        LogTicks(plot.Axes.Left);
        plot.ShowLegend(Edge.Right);
        plot.Title(title);
        plot.SavePng(path, 1200, 700);
    }

    private static Color Colour(ContenderFamily family) => family switch
    {
        ContenderFamily.Ceiling => Ceiling,
        ContenderFamily.Rx => Rx,
        ContenderFamily.Dataflow => Dataflow,
        ContenderFamily.ActorSystem => ActorSystem,
        _ => Ours,
    };

    private static void LogTicks(IAxis axis)
    {
        axis.TickGenerator = new NumericAutomatic
        {
            MinorTickGenerator = new LogMinorTickGenerator(),
            IntegerTicksOnly = true,
            LabelFormatter = v => Math.Pow(10, v).ToString("N0", CultureInfo.InvariantCulture),
        };
        axis.Label.Text = "messages per second (log scale)";
    }
}
