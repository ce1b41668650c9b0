using System.Globalization;
using System.Text;
using ScottPlot;

namespace Concurrency.Benchmarks.Backbone.Lab;

/// <summary>
/// Writes what the lab measured: one Markdown section per experiment (NAME.md, with its own commit, machine and command, so
/// experiments can be re-run one at a time), its charts as PNG, and LAB.md, the sections of every experiment present in the
/// folder, in the lab's order.
/// </summary>
internal static class LabReport
{
    public const string FileName = "LAB.md";

    /// <summary>Writes the section of <paramref name="experiment"/> from its outcome at each core count, then LAB.md.</summary>
    public static string WriteSection(string directory, ILabExperiment experiment, IReadOnlyList<(int Cores, LabOutcome Outcome)> runs, RunProvenance provenance, bool quick, int launches = 1, bool serverGc = false)
    {
        Directory.CreateDirectory(directory);
        var placement = experiment.PerCoreCount
            ? $"Each core count in a process of its own, pinned to that many cores: {string.Join(", ", runs.Select(r => r.Cores))}."
            : "In a process of its own, on all cores.";
        var text = new StringBuilder()
            .AppendLine(CultureInfo.InvariantCulture, $"## {experiment.Title}")
            .AppendLine()
            .AppendLine(experiment.Method.Trim())
            .AppendLine()
            .AppendLine(Experiment.MachineAndCommand(provenance, Environment.ProcessorCount, $"{placement} Garbage collector: {(serverGc ? "server (--gc server)" : "workstation (the program's setting)")}, non-concurrent, in every process the experiment starts."))
            .AppendLine();
        if (launches > 1)
        {
            var count = launches.ToString(CultureInfo.InvariantCulture);
            text.AppendLine($"Launches: {count}, each a fresh process. A measured value is the median of the {count} launches' values [the lowest, the highest of them]; "
                + "a cell that differs between launches and is not a number (a verdict) lists each launch's text in launch order. Charts show the launches' medians.").AppendLine();
        }

        if (quick)
        {
            text.AppendLine(Experiment.QuickBanner("smoke-test sizes, one repetition")).AppendLine();
        }

        var perCore = experiment.PerCoreCount;
        foreach (var title in runs.SelectMany(r => r.Outcome.Tables).Select(t => t.Title).Distinct())
        {
            var tables = runs.SelectMany(r => r.Outcome.Tables.Where(t => t.Title == title).Select(t => (r.Cores, Table: t))).ToList();
            AppendTable(text, title, tables, perCore);
        }

        foreach (var (cores, outcome) in runs)
        {
            foreach (var chart in outcome.Charts)
            {
                var file = perCore ? string.Create(CultureInfo.InvariantCulture, $"{chart.Name}-{cores}c.png") : $"{chart.Name}.png";
                Draw(Path.Combine(directory, file), perCore ? $"{chart.Title} ({Experiment.CoreCount(cores)})" : chart.Title, chart);
                text.AppendLine(CultureInfo.InvariantCulture, $"![{chart.Title}]({file})").AppendLine();
            }
        }

        var path = Path.Combine(directory, experiment.Name + ".md");
        File.WriteAllText(path, text.ToString());
        var figures = runs
            .SelectMany(r => (r.Outcome.Figures ?? []).Select(f => Measurement.Of(experiment.Name, f.Contender, f.Family, f.Conditions, Phase.Steady, r.Cores, f.Metric, f.Values)))
            .ToList();
        if (figures.Count > 0)
        {
            new ResultSet($"lab {experiment.Name}", provenance, figures).WriteBeside(path);
        }

        WriteIndex(directory);
        return path;
    }

    /// <summary>LAB.md: every experiment's section present in the folder, in the lab's order.</summary>
    public static void WriteIndex(string directory)
    {
        var text = new StringBuilder()
            .AppendLine("# Workload lab")
            .AppendLine()
            .AppendLine("When concurrency pays, log appends under threads, an elastic worker pool, admission control and gRPC streaming peers, each beside the seed's figures. "
                + "Each section says the commit, machine and command that produced it; `dotnet run -c Release --project benchmarks/Concurrency.Benchmarks -- lab` re-runs them all.")
            .AppendLine();
        foreach (var experiment in LabExperiments.All)
        {
            var section = Path.Combine(directory, experiment.Name + ".md");
            if (File.Exists(section))
            {
                text.AppendLine(File.ReadAllText(section).TrimEnd()).AppendLine();
            }
        }

        File.WriteAllText(Path.Combine(directory, FileName), text.ToString());
    }

    private static void AppendTable(StringBuilder text, string title, List<(int Cores, LabTable Table)> tables, bool perCore)
    {
        var first = tables[0].Table;
        var columns = perCore ? ["cores", .. first.Columns] : first.Columns.ToList();
        var numeric = new HashSet<string>(first.NumericColumns ?? [], StringComparer.Ordinal) { "cores" };
        text.AppendLine(CultureInfo.InvariantCulture, $"### {title}").AppendLine()
            .AppendLine("| " + string.Join(" | ", columns) + " |")
            .AppendLine("|" + string.Join("|", columns.Select(c => numeric.Contains(c) ? "---:" : "---")) + "|");
        foreach (var (cores, table) in tables)
        {
            foreach (var row in table.Rows)
            {
                var cells = perCore ? [cores.ToString(CultureInfo.InvariantCulture), .. row] : row.ToList();
                text.AppendLine("| " + string.Join(" | ", cells.Select(c => c.Replace("|", "\\|", StringComparison.Ordinal))) + " |");
            }
        }

        text.AppendLine();
        foreach (var note in tables.Select(t => t.Table.Note).Where(n => !string.IsNullOrWhiteSpace(n)).Distinct())
        {
            text.AppendLine(note!.Trim()).AppendLine();
        }
    }

    private static void Draw(string path, string title, LabChart chart)
    {
        var plot = new Plot();
        foreach (var series in chart.Series)
        {
            double[] xs = [.. series.X.Select(x => chart.LogX ? Math.Log10(x) : x)];
            double[] ys = [.. series.Y.Select(y => chart.LogY ? Math.Log10(Math.Max(y, double.Epsilon)) : y)];
            var line = plot.Add.Scatter(xs, ys);
            line.LegendText = series.Label;
            line.MarkerSize = 6;
        }

        if (chart.LogX)
        {
            LogLabels(plot.Axes.Bottom, chart.Series.SelectMany(s => s.X));
        }

        if (chart.LogY)
        {
            LogLabels(plot.Axes.Left, chart.Series.SelectMany(s => s.Y));
        }

        plot.XLabel(chart.XLabel + (chart.LogX ? " (log scale)" : string.Empty));
        plot.YLabel(chart.YLabel + (chart.LogY ? " (log scale)" : string.Empty));
        plot.Title(title);
        plot.ShowLegend(Alignment.UpperLeft);
        plot.SavePng(path, 900, 520);
    }

    /// <summary>Ticks at the values' decades, labelled with the values themselves, for an axis plotted as log10.</summary>
    private static void LogLabels(IAxis axis, IEnumerable<double> values)
    {
        var positive = values.Where(v => v > 0).ToList();
        if (positive.Count == 0)
        {
            return;
        }

        var low = (int)Math.Floor(Math.Log10(positive.Min()));
        var high = (int)Math.Ceiling(Math.Log10(positive.Max()));
        var decades = Enumerable.Range(low, high - low + 1).ToArray();
        axis.SetTicks([.. decades.Select(d => (double)d)], [.. decades.Select(d => Math.Pow(10, d).ToString("G3", CultureInfo.InvariantCulture))]);
    }
}
