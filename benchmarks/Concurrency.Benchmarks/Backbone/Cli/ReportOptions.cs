
namespace Concurrency.Benchmarks.Backbone.Cli;

/// <summary>The report command as the command line asked for it.</summary>
/// <param name="ResultsDirectory">Where BenchmarkDotNet's *-report-full.json files and our side files are.</param>
/// <param name="OutputDirectory">Where REPORT.md, README-table.md and the charts go; null for a new folder under results/runs/report.</param>
/// <param name="AllowMixedCommits">Whether results measured at different commits may be merged (the report says so loudly).</param>
public sealed record ReportOptions(string ResultsDirectory, string? OutputDirectory, bool AllowMixedCommits)
{
    public const string DefaultResults = "BenchmarkDotNet.Artifacts/results";

    /// <summary>The folder under results/ that holds a folder per report written without <c>--out</c>.</summary>
    public const string ReportsKind = "report";
}
