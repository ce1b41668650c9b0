using System.CommandLine;
using System.Globalization;
using System.Text;

namespace Concurrency.Benchmarks.Backbone.Compare;

/// <summary>
/// <c>-- compare A B [--out DIR]</c>: two runs' results (two result folders, or two result-set files: two machines, two
/// commits, two runtimes) as one table of B ÷ A per figure both measured, each with its interval and a verdict on whether
/// the difference is beyond the noise (<see cref="Comparison"/>); the machines, commits, runtimes and commands side by
/// side; a chart. Printed, and written as COMPARE.md (with compare.png) in --out. Results without their machine-readable
/// result set (the JSON with provenance beside each table) are refused with one line and exit code 2, as a bad command
/// line is; so is a path that does not exist. Two sides with no figure in common: one line, exit code 1.
/// </summary>
public static class CompareCommand
{
    /// <summary>The most rows the chart draws (the largest differences beyond the noise first).</summary>
    private const int ChartRows = 40;

    public static Command Create()
    {
        var a = new Argument<string>("A") { Description = "the reference: a result folder (read recursively) or one result-set .json" };
        var b = new Argument<string>("B") { Description = "what is compared with it, likewise; each row gives B ÷ A" };
        var outDirectory = CommonOptions.Out("where COMPARE.md and compare.png go (default: a new folder results/runs/compare/yyyy-MM-dd-HHmmss)");
        var command = new Command("compare", "Compares two runs' results (two folders or two result-set .json files: machines, commits, runtimes): per figure both measured, B ÷ A with its 95% interval (from the per-launch samples) and whether the difference is beyond the noise; the two sides' machines, commits and runtimes side by side; a chart. Writes COMPARE.md.")
        {
            a, b, outDirectory,
        };
        command.SetAction(parse => Run(
            parse.GetValue(a)!,
            parse.GetValue(b)!,
            parse.GetValue(outDirectory) ?? StampedFolder.Create("compare"),
            parse.InvocationConfiguration.Output,
            parse.InvocationConfiguration.Error));
        return command;
    }

    /// <exception cref="UsageException">A side does not exist or holds no result set with provenance.</exception>
    public static int Run(string a, string b, string outDirectory, TextWriter output, TextWriter error)
    {
        ArgumentNullException.ThrowIfNull(output);
        ArgumentNullException.ThrowIfNull(error);
        var before = Load("A", a);
        var after = Load("B", b);
        var figures = Comparison.Pair(before.Select(s => s.Set), after.Select(s => s.Set));
        if (figures.Count == 0)
        {
            error.WriteLine($"compare: {a} and {b} have no figure in common (same scenario, contender, conditions, phase, cores and metric).");
            return 1;
        }

        var (onlyA, onlyB) = Comparison.Unpaired(before.Select(s => s.Set), after.Select(s => s.Set));
        var text = new StringBuilder()
            .AppendLine("# Compare")
            .AppendLine()
            .AppendLine("|  | A | B |")
            .AppendLine("|---|---|---|")
            .AppendLine(Side("results", before, after, s => s.Path))
            .AppendLine(Side("commit", before, after, s => s.Set.Provenance.CommitLabel))
            .AppendLine(Side("runtime", before, after, s => s.Set.Provenance.Runtime))
            .AppendLine(Side("machine", before, after, s => string.Create(CultureInfo.InvariantCulture, $"{s.Set.Provenance.Cpu}, {s.Set.Provenance.LogicalCores} logical cores, {s.Set.Provenance.Os}")))
            .AppendLine(Side("command", before, after, s => $"`{s.Set.Provenance.Arguments}`"))
            .AppendLine(Side("finished (UTC)", before, after, s => s.Set.Provenance.FinishedUtc.ToString("yyyy-MM-dd HH:mm", CultureInfo.InvariantCulture)))
            .AppendLine()
            .AppendLine(string.Create(CultureInfo.InvariantCulture, $"{figures.Count} figures both measured ({figures.Count(f => f.BeyondNoise)} beyond the noise); {onlyA} only in A, {onlyB} only in B. ")
                + "Each row is B ÷ A. Its interval: where both figures carry several samples (one per launch), the 95% percentile bootstrap of the ratio of medians, each side's launches drawn independently (2,000 replicates, fixed seed); otherwise B's low ÷ A's high to B's high ÷ A's low. "
                + "\"beyond noise\" means the interval excludes 1; \"better\" is higher for a rate, lower for a time or a cost.")
            .AppendLine()
            .AppendLine("![B ÷ A](compare.png)")
            .AppendLine()
            .AppendLine("| scenario | cores | metric | contender | A | B | B ÷ A [interval] | verdict |")
            .AppendLine("|---|---:|---|---|---:|---:|---:|---|");
        foreach (var figure in figures)
        {
            text.AppendLine(CultureInfo.InvariantCulture, $"| {figure.A.Scenario} | {figure.A.Cores} | {figure.A.Metric} | {figure.Name} | {Value(figure.A.Median)} | {Value(figure.B.Median)} | {figure.FormatRatio()} | {figure.Verdict} |");
        }

        Directory.CreateDirectory(outDirectory);
        var charted = figures.OrderByDescending(f => f.BeyondNoise).ThenByDescending(f => Math.Abs(Math.Log(f.Ratio.Point))).Take(ChartRows).ToList();
        CompareChart.Ratios(Path.Combine(outDirectory, "compare.png"), charted.Count < figures.Count ? $"B ÷ A, the {charted.Count} largest of {figures.Count} differences" : "B ÷ A", charted);
        var file = Path.Combine(outDirectory, "COMPARE.md");
        File.WriteAllText(file, text.ToString());
        output.WriteLine(text.ToString());
        output.WriteLine($"Wrote {file}.");
        return 0;
    }

    /// <summary>Every result set of one side: the file itself, or every one under the folder.</summary>
    /// <exception cref="UsageException">The path does not exist, the file is no result set, or the folder holds none.</exception>
    private static List<(string Path, ResultSet Set)> Load(string side, string path)
    {
        if (File.Exists(path))
        {
            try
            {
                return [(path, ResultSet.Read(path))];
            }
            catch (InvalidDataException refused)
            {
                throw new UsageException($"compare: {side}: {refused.Message}");
            }
        }

        if (!Directory.Exists(path))
        {
            throw new UsageException($"compare: {side}: no file or folder {path}.");
        }

        var sets = ResultSet.FindAll(path).ToList();
        return sets.Count > 0
            ? sets
            : throw new UsageException($"compare: {side}: {path} holds no result set (the .json with provenance beside each table); results written before they were recorded cannot be compared: re-run the command that made them.");
    }

    /// <summary>A row of the side-by-side table: each side's distinct values.</summary>
    private static string Side(string what, List<(string Path, ResultSet Set)> a, List<(string Path, ResultSet Set)> b, Func<(string Path, ResultSet Set), string> value)
        => $"| {what} | {string.Join("<br>", a.Select(value).Distinct())} | {string.Join("<br>", b.Select(value).Distinct())} |";

    private static string Value(double value) => Math.Abs(value) switch
    {
        >= 1e6 => string.Create(CultureInfo.InvariantCulture, $"{value / 1e6:0.0} M"),
        >= 100 => value.ToString("N0", CultureInfo.InvariantCulture),
        _ => value.ToString("0.###", CultureInfo.InvariantCulture),
    };
}
