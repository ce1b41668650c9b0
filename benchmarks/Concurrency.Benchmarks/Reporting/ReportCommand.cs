using System.CommandLine;
using Concurrency.Benchmarks.Cli;
using Concurrency.Benchmarks.Runs;

namespace Concurrency.Benchmarks.Reporting;

/// <summary>
/// <c>-- report [--results DIR] [--out DIR] [--allow-mixed-commits]</c>: merges BenchmarkDotNet's full JSON results and
/// our side files into REPORT.md, README-table.md and PNG charts. Refuses (exit 1) to merge results measured at different
/// commits unless told to, because a table mixing them would credit the code with changes it did not make. Without
/// <c>--out</c> it writes a new folder, results/reports/yyyy-MM-dd-HHmmss, never over the committed results.
/// </summary>
public static class ReportCommand
{
    public static Command Create()
    {
        var results = new Option<string>("--results")
        {
            HelpName = "DIR",
            Description = "BenchmarkDotNet's results",
            DefaultValueFactory = _ => ReportOptions.DefaultResults,
        };
        var outDirectory = CommonOptions.Out("where REPORT.md, README-table.md and the charts go (default: a new folder results/reports/yyyy-MM-dd-HHmmss; --out results updates the committed report)");
        var allowMixed = new Option<bool>("--allow-mixed-commits") { Description = "merge results measured at different commits (REPORT.md says so)" };
        var command = new Command("report", "Turns BenchmarkDotNet's results into REPORT.md, README-table.md and charts.") { results, outDirectory, allowMixed };
        command.SetAction(parse => Run(
            new ReportOptions(parse.GetValue(results) ?? ReportOptions.DefaultResults, parse.GetValue(outDirectory), parse.GetValue(allowMixed)),
            parse.InvocationConfiguration.Output,
            parse.InvocationConfiguration.Error));
        return command;
    }

    /// <param name="baseDirectory">What a report written without <c>--out</c> goes under (results/reports/...); the current directory by default.</param>
    public static int Run(ReportOptions options, TextWriter output, TextWriter error, string baseDirectory = "")
    {
        ArgumentNullException.ThrowIfNull(options);
        var files = Directory.Exists(options.ResultsDirectory)
            ? Directory.GetFiles(options.ResultsDirectory, "*" + ResultFiles.FullJsonSuffix).Order(StringComparer.Ordinal).ToList()
            : [];
        if (files.Count == 0)
        {
            error.WriteLine($"report: no *{ResultFiles.FullJsonSuffix} under {options.ResultsDirectory}: run the benchmarks first.");
            return 1;
        }

        var merged = MergedResults.Merge([.. files.Select(ResultSource.Load)]);
        if (merged.MixedCommits && !options.AllowMixedCommits)
        {
            var which = string.Join("; ", merged.Sources.Select(s => $"{s.FileName} at {s.Commit}"));
            error.WriteLine($"report: refusing to merge results from {merged.Commits.Count} commits ({which}); re-run at one commit, or pass --allow-mixed-commits.");
            return 1;
        }

        if (merged.Results.Count == 0)
        {
            error.WriteLine($"report: the results under {options.ResultsDirectory} hold no measured benchmark.");
            return 1;
        }

        var outDirectory = options.OutputDirectory ?? StampedFolder.Create(ReportOptions.ReportsKind, baseDirectory);
        Directory.CreateDirectory(outDirectory);
        var command = CommandText(options);
        var reportPath = Path.Combine(outDirectory, "REPORT.md");
        File.WriteAllText(reportPath, ReportWriter.Write(merged, outDirectory, command));
        var tablePath = Path.Combine(outDirectory, ReadmeTable.FileName);
        if (ReadmeTable.Write(merged, command) is { } table)
        {
            File.WriteAllText(tablePath, table);
            output.WriteLine($"Wrote {reportPath}, {tablePath} and charts from {files.Count} result file(s).");
        }
        else
        {
            output.WriteLine($"Wrote {reportPath} and charts from {files.Count} result file(s); no headline results, so no {ReadmeTable.FileName}.");
        }

        if (merged.MixedCommits)
        {
            error.WriteLine($"report: warning: merged results from {merged.Commits.Count} commits, as --allow-mixed-commits asked; REPORT.md says so at the top.");
        }

        return 0;
    }

    /// <summary>This report's own command line, for the report to print beside the run's.</summary>
    private static string CommandText(ReportOptions options)
    {
        var parts = new List<string> { MergedResults.Command, "--", "report" };
        if (options.ResultsDirectory != ReportOptions.DefaultResults)
        {
            parts.AddRange(["--results", options.ResultsDirectory]);
        }

        if (options.OutputDirectory is not null)
        {
            parts.AddRange(["--out", options.OutputDirectory]);
        }

        if (options.AllowMixedCommits)
        {
            parts.Add("--allow-mixed-commits");
        }

        return string.Join(' ', parts);
    }
}
