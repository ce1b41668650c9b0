namespace Concurrency.Benchmarks.Cli;

/// <summary>The report command as the command line asked for it.</summary>
/// <param name="ResultsDirectory">Where BenchmarkDotNet's *-report-full.json files and our side files are.</param>
/// <param name="OutputDirectory">Where REPORT.md, README-table.md and the charts go.</param>
/// <param name="AllowMixedCommits">Whether results measured at different commits may be merged (the report says so loudly).</param>
/// <param name="Help">Whether to print the help instead.</param>
public sealed record ReportOptions(string ResultsDirectory, string OutputDirectory, bool AllowMixedCommits, bool Help)
{
    public const string DefaultResults = "BenchmarkDotNet.Artifacts/results";
    public const string DefaultOutput = "results";

    /// <exception cref="UsageException">An option is unknown or lacks its value.</exception>
    public static ReportOptions Parse(IReadOnlyList<string> args)
    {
        var options = new ReportOptions(DefaultResults, DefaultOutput, AllowMixedCommits: false, Help: false);
        for (var i = 0; i < args.Count; i++)
        {
            options = args[i] switch
            {
                "--results" => options with { ResultsDirectory = Value(args, ref i) },
                "--out" => options with { OutputDirectory = Value(args, ref i) },
                "--allow-mixed-commits" => options with { AllowMixedCommits = true },
                "--help" or "-h" or "-?" => options with { Help = true },
                _ => throw new UsageException($"report: unknown option '{args[i]}'; see report --help."),
            };
        }

        return options;
    }

    private static string Value(IReadOnlyList<string> args, ref int i)
    {
        if (i + 1 >= args.Count || args[i + 1].StartsWith('-'))
        {
            throw new UsageException($"report: {args[i]} needs a directory.");
        }

        return args[++i];
    }
}
