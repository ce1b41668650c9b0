using System.Globalization;
using System.Text.RegularExpressions;

namespace Concurrency.Benchmarks.Backbone.Lab;

/// <summary>
/// Folds the outcomes of several launches of one experiment (<c>lab --launches N</c>) into one, so a published value is
/// the median of launches with its spread, never one launch. A cell that reads the same in every launch (a label, a goal,
/// a size) is kept. A numeric cell, "VALUE[ [LOW, HIGH]][SUFFIX]" as the experiments write them, becomes the median of
/// the launches' values with the lowest and highest of them: "MEDIAN [LOWEST, HIGHEST]SUFFIX". Any other cell that
/// differs (a verdict, say) lists each launch's text in launch order, "met / not met / met", so nothing is averaged away.
/// Chart points become the median of the launches' points.
/// </summary>
internal static partial class LabLaunches
{
    /// <summary>Merges the launches' outcomes; with one launch, returns it as it is.</summary>
    public static LabOutcome Merge(IReadOnlyList<LabOutcome> launches)
    {
        ArgumentNullException.ThrowIfNull(launches);
        if (launches.Count == 0)
        {
            throw new ArgumentException("No launches.", nameof(launches));
        }

        if (launches.Count == 1)
        {
            return launches[0];
        }

        var first = launches[0];
        return new LabOutcome(
            [.. first.Tables.Select((table, t) => MergeTable(table, [.. launches.Select(l => t < l.Tables.Count ? l.Tables[t] : null)]))],
            [.. first.Charts.Select((chart, c) => MergeChart(chart, [.. launches.Select(l => c < l.Charts.Count ? l.Charts[c] : null)]))],
            MergeFigures(launches));
    }

    /// <summary>Each figure as the launches' medians, in launch order; a figure some launch lacks is left out.</summary>
    private static List<LabFigure> MergeFigures(IReadOnlyList<LabOutcome> launches)
        => [.. (launches[0].Figures ?? [])
            .Select(figure => launches.Select(l => l.Figures?.FirstOrDefault(f => (f.Contender, f.Conditions, f.Metric) == (figure.Contender, figure.Conditions, figure.Metric))).ToList())
            .Where(each => each.All(f => f is { Values.Count: > 0 }))
            .Select(each => each[0]! with { Values = [.. each.Select(f => LabSample.Of(f!.Values).Median)] })];

    /// <summary>One cell from its text in each launch (see the type's summary).</summary>
    public static string MergeCell(IReadOnlyList<string> cells)
    {
        ArgumentNullException.ThrowIfNull(cells);
        if (cells.Distinct(StringComparer.Ordinal).Count() == 1)
        {
            return cells[0];
        }

        var parsed = cells.Select(c => NumericCell().Match(c)).ToList();
        if (parsed.Any(m => !m.Success) || parsed.Select(m => m.Groups["rest"].Value).Distinct(StringComparer.Ordinal).Count() != 1)
        {
            return string.Join(" / ", cells);
        }

        var numbers = parsed.Select(m => m.Groups["value"].Value).ToList();
        var decimals = numbers.Max(n => n.Contains('.', StringComparison.Ordinal) ? n.Length - n.IndexOf('.', StringComparison.Ordinal) - 1 : 0);
        var format = (numbers.Any(n => n.Contains(',', StringComparison.Ordinal)) ? "N" : "F") + decimals.ToString(CultureInfo.InvariantCulture);
        var sample = LabSample.Of([.. numbers.Select(n => double.Parse(n, NumberStyles.Number, CultureInfo.InvariantCulture))]);
        return string.Create(CultureInfo.InvariantCulture, $"{sample.Median.ToString(format, CultureInfo.InvariantCulture)} [{sample.Low.ToString(format, CultureInfo.InvariantCulture)}, {sample.High.ToString(format, CultureInfo.InvariantCulture)}]{parsed[0].Groups["rest"].Value}");
    }

    private static LabTable MergeTable(LabTable first, IReadOnlyList<LabTable?> tables)
    {
        if (tables.Any(t => t is null || t.Title != first.Title || t.Rows.Count != first.Rows.Count || !t.Columns.SequenceEqual(first.Columns)
            || t.Rows.Where((row, r) => row.Count != first.Rows[r].Count).Any()))
        {
            return first with { Note = Join(first.Note, "The launches did not produce this table in the same shape; the first launch's is shown.") };
        }

        return first with
        {
            Rows = [.. first.Rows.Select((row, r) => (IReadOnlyList<string>)[.. row.Select((_, c) => MergeCell([.. tables.Select(t => t!.Rows[r][c])]))])],
        };
    }

    private static LabChart MergeChart(LabChart first, IReadOnlyList<LabChart?> charts)
    {
        if (charts.Any(c => c is null || c.Series.Count != first.Series.Count
            || c.Series.Where((s, i) => s.Label != first.Series[i].Label || !s.X.SequenceEqual(first.Series[i].X) || s.Y.Count != first.Series[i].Y.Count).Any()))
        {
            return first;
        }

        return first with
        {
            Series = [.. first.Series.Select((series, s) => series with
            {
                Y = [.. series.Y.Select((_, p) => LabSample.Of([.. charts.Select(c => c!.Series[s].Y[p])]).Median)],
            })],
        };
    }

    private static string Join(string? note, string more) => string.IsNullOrWhiteSpace(note) ? more : $"{note.Trim()} {more}";

    // A value as the experiments format it (N0, N1, 0.00; thousands separators allowed), an optional "[low, high]"
    // range from the runs within a launch (replaced by the launches' range), then whatever follows ("%", " ns").
    [GeneratedRegex(@"^(?<value>-?\d[\d,]*(?:\.\d+)?)(?: \[-?\d[\d,]*(?:\.\d+)?, -?\d[\d,]*(?:\.\d+)?\])?(?<rest>(?:[^\d\[].*)?)$", RegexOptions.CultureInvariant)]
    private static partial Regex NumericCell();
}
