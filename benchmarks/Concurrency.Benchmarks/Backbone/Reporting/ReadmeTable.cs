using System.Globalization;
using System.Text;

namespace Concurrency.Benchmarks.Backbone.Reporting;

/// <summary>
/// README-table.md: the headline in a compact table meant to be pasted into the README as it is, with the machine, the
/// commit and the exact commands that reproduce it, so no number in the README lacks its source.
/// </summary>
public static class ReadmeTable
{
    public const string FileName = "README-table.md";

    /// <summary>The table, or null when the results hold no headline.</summary>
    public static string? Write(MergedResults merged, string reportCommand)
    {
        var results = merged.Results;
        if (!results.Any(r => r.Scenario == Peers.Headline))
        {
            return null;
        }

        var jobs = merged.Jobs(Peers.Headline);
        var top = jobs[^1];
        var source = merged.Sources.Where(s => s.Results.Any(r => r.Scenario == Peers.Headline)).MaxBy(s => s.WrittenUtc)!;
        var text = new StringBuilder();
        text.AppendLine(CultureInfo.InvariantCulture, $"Headline: one producer thread to one consumer thread, small preallocated messages, steady state, every block verified. Median msg/s with its 95% interval ({Bootstrap.ShortMethod}); ratios are of medians, with their intervals, and say faster or slower only where the intervals do not overlap.");
        text.AppendLine();
        var headers = jobs.Select(j => $"msg/s, {j} [95% CI]")
            .Concat(jobs.Select(j => $"CPU ns/msg, {j}"))
            .Concat(jobs.Select(j => $"× {Peers.RxObserveOn.Title}, {j}"))
            .Concat(jobs.Select(j => $"× {Peers.DataflowActionBlock.Title}, {j}"))
            .ToList();
        text.AppendLine("| path | " + string.Join(" | ", headers) + " |");
        text.AppendLine("|---|" + string.Concat(headers.Select(_ => "---:|")));
        foreach (var row in merged.Rows(Peers.Headline, top))
        {
            BenchmarkResult? At(string job) => row.FirstOrDefault(r => r.Job == job);
            var name = Families.Of(row.First().Contender) == ContenderFamily.Ceiling ? $"{row.Key} (ceiling)" : row.Key;
            var cells = jobs.Select(j => Cells.Rate(At(j)))
                .Concat(jobs.Select(j => Cells.Cpu(At(j))))
                .Concat(jobs.Select(j => Cells.Ratio(At(j), Peers.RxObserveOn, results)))
                .Concat(jobs.Select(j => Cells.Ratio(At(j), Peers.DataflowActionBlock, results)));
            text.AppendLine(CultureInfo.InvariantCulture, $"| {name} | {string.Join(" | ", cells)} |");
        }

        text.AppendLine();
        var machine = source.Machine;
        text.AppendLine(CultureInfo.InvariantCulture, $"Machine: {machine.Identity}, BenchmarkDotNet {machine.BenchmarkDotNet}; commit `{source.CommitLabel}`, measured {machine.Date:yyyy-MM-dd}.");
        text.AppendLine();
        text.AppendLine("Reproduce:");
        text.AppendLine();
        text.AppendLine("```");
        text.AppendLine(MergedResults.RunCommand(source));
        text.AppendLine(reportCommand);
        text.AppendLine("```");
        return text.ToString();
    }
}
