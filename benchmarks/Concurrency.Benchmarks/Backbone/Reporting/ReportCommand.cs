using System.CommandLine;

namespace Concurrency.Benchmarks.Backbone.Reporting;

/// <summary>
/// <c>-- report [--results DIR] [--out DIR] [--allow-mixed-commits]</c>: merges BenchmarkDotNet's full JSON results and
/// our side files into REPORT.md, README-table.md and PNG charts. Refuses (exit 1) to merge results measured at different
/// commits unless told to, because a table mixing them would credit the code with changes it did not make. Without
/// <c>--out</c> it writes a new folder, results/runs/report/yyyy-MM-dd-HHmmss, never over the committed results.
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
        var outDirectory = CommonOptions.Out("where REPORT.md, README-table.md and the charts go (default: a new folder results/runs/report/yyyy-MM-dd-HHmmss; --out results updates the committed report)");
        var allowMixed = new Option<bool>("--allow-mixed-commits") { Description = "merge results measured at different commits (REPORT.md says so)" };
        var command = new Command("report", "Turns BenchmarkDotNet's results into REPORT.md, README-table.md and charts; 'report decide' writes the \"which one should I use\" table.") { results, outDirectory, allowMixed, Decide() };
        command.SetAction(parse => Run(
            new ReportOptions(parse.GetValue(results) ?? ReportOptions.DefaultResults, parse.GetValue(outDirectory), parse.GetValue(allowMixed)),
            parse.InvocationConfiguration.Output,
            parse.InvocationConfiguration.Error));
        return command;
    }

    /// <summary>
    /// <c>-- report decide [--from DIR] [--readme FILE]</c>: the decision table from every result set (the JSON beside each
    /// table) under DIR, the committed results by default; printed, and spliced into the README's marked block when asked.
    /// </summary>
    private static Command Decide()
    {
        var from = new Option<string>("--from")
        {
            HelpName = "DIR",
            Description = "where the result sets (*.json beside each table) are read from, recursively; the newest figure of each contender wins",
            DefaultValueFactory = _ => "results",
        };
        var readme = new Option<string?>("--readme") { HelpName = "FILE", Description = "write the table into FILE between its decision-table markers" };
        var decide = new Command("decide", "Writes the \"which one should I use\" table from the results under --from: per situation the winner on the measuring machine, by how much over the runner-up with its interval, and the runner-up.") { from, readme };
        decide.SetAction(parse =>
        {
            var directory = parse.GetValue(from) ?? "results";
            var output = parse.InvocationConfiguration.Output;
            if (!Directory.Exists(directory))
            {
                parse.InvocationConfiguration.Error.WriteLine($"report decide: no directory {directory}.");
                return 1;
            }

            // Smoke runs and the dated folders of runs not told where to write are not the results to decide by.
            var sets = ResultSet.FindAll(directory)
                .Where(s => Path.GetRelativePath(directory, s.Path).Split(Path.DirectorySeparatorChar, Path.AltDirectorySeparatorChar)[0] is not ("runs" or "quick" or "reports" or "footprints"))
                .ToList();
            var table = DecisionTable.Write(sets, directory);
            output.WriteLine(table);
            if (parse.GetValue(readme) is { } file)
            {
                File.WriteAllText(file, DecisionTable.Splice(File.ReadAllText(file), table));
                output.WriteLine($"Wrote the table into {file} from {sets.Count} result set(s).");
            }

            return 0;
        });
        return decide;
    }

    /// <param name="baseDirectory">What a report written without <c>--out</c> goes under (results/runs/report/...); the current directory by default.</param>
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
        if (merged.Sources.FirstOrDefault(s => s.Provenance is not null)?.Provenance is { } provenance)
        {
            output.WriteLine($"Wrote {new ResultSet("report", provenance, [.. Measurements(merged)]).WriteBeside(reportPath)}.");
        }

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

    /// <summary>
    /// Every case's rate (the median with its bootstrap interval, the launches' medians as samples), and its CPU and
    /// allocation per message where measured, as the machine-readable results beside REPORT.md.
    /// </summary>
    private static IEnumerable<Measurement> Measurements(MergedResults merged)
    {
        foreach (var result in merged.Results)
        {
            var family = Families.Of(result.Contender);
            var rate = result.Throughput;
            yield return new Measurement(result.Scenario, result.Contender, family, result.Conditions, Phase.Steady, result.Cores, Measurement.MessagesPerSecond, rate.Point, rate.Low, rate.High)
            {
                Samples = [.. result.Launches.Select(l => Bootstrap.MedianOf([.. l]))],
            };
            if (result.CpuNanosecondsPerMessage is { } cpu)
            {
                yield return new Measurement(result.Scenario, result.Contender, family, result.Conditions, Phase.Steady, result.Cores, Measurement.CpuNanosecondsPerMessage, cpu, cpu, cpu) { Samples = [cpu] };
            }

            if (result.BytesPerMessage is { } bytes)
            {
                yield return new Measurement(result.Scenario, result.Contender, family, result.Conditions, Phase.Steady, result.Cores, Measurement.BytesPerMessage, bytes, bytes, bytes) { Samples = [bytes] };
            }
        }
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
