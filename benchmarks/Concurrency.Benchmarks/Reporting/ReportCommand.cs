using System.Globalization;
using System.Text;
using System.Text.Json;

namespace Concurrency.Benchmarks.Reporting;

/// <summary>
/// <c>-- report [--results DIR] [--out DIR]</c>: reads BenchmarkDotNet's full JSON results and writes REPORT.md (per
/// scenario, msg/s by core count, the ratio to Rx ObserveOn on the TaskPool, % of the two ceilings, bytes, work items and
/// lock contentions per message, and the machine) and PNG charts beside it.
/// </summary>
public static class ReportCommand
{
    private const string Headline = "HeadlineBenchmarks";

    public static int Run(Cli.ReportOptions options, TextWriter output, TextWriter error)
    {
        var resultsDirectory = options.ResultsDirectory;
        var outputDirectory = options.OutputDirectory;
        var files = Directory.Exists(resultsDirectory)
            ? Directory.GetFiles(resultsDirectory, "*-report-full.json").OrderBy(File.GetLastWriteTimeUtc).ToList()
            : [];
        if (files.Count == 0)
        {
            Console.Error.WriteLine($"No *-report-full.json under {resultsDirectory}: run the benchmarks first.");
            return 1;
        }

        MachineInfo? machine = null;
        var results = new Dictionary<(string, string, int), BenchmarkResult>();
        foreach (var file in files)
        {
            using var json = JsonDocument.Parse(File.ReadAllText(file));
            machine = MachineInfo.Read(json.RootElement, File.GetLastWriteTimeUtc(file));
            foreach (var result in BenchmarkResult.Read(json.RootElement))
            {
                results[(result.Scenario, result.Case, result.Cores)] = result; // the newest file wins
            }
        }

        Directory.CreateDirectory(outputDirectory);
        var report = Write(results.Values.ToList(), machine!, files, outputDirectory);
        var reportPath = Path.Combine(outputDirectory, "REPORT.md");
        File.WriteAllText(reportPath, report);
        Console.WriteLine($"Wrote {reportPath} and charts from {files.Count} result file(s).");
        return 0;
    }

    private static string Write(List<BenchmarkResult> results, MachineInfo machine, List<string> files, string outputDirectory)
    {
        var text = new StringBuilder();
        text.AppendLine("# Benchmark report").AppendLine();
        text.AppendLine(CultureInfo.InvariantCulture, $"Machine: {machine}.").AppendLine();
        text.AppendLine("Produced by `dotnet run -c Release --project benchmarks/Concurrency.Benchmarks` (add `-- --cores 1,2,4,8` or `--filter` for more), then `dotnet run -c Release --project benchmarks/Concurrency.Benchmarks -- report`, from:");
        foreach (var file in files)
        {
            text.AppendLine(CultureInfo.InvariantCulture, $"- `{Path.GetFileName(file)}`");
        }

        text.AppendLine();
        text.AppendLine("Every row moved every message and checked count, checksum and (with one producer) order; a mismatch fails the benchmark, so a row here is a verified result.");
        text.AppendLine("Each msg/s carries the spread of its iterations (standard deviation over mean of the time per message): a wide one means the machine was busy or the case is unstable, so read it as a range.");
        text.AppendLine("The ratio to Rx ObserveOn (TaskPool) is given per core count; the other columns are at the largest core count measured. The references (Rx ObserveOn on the TaskPool, DirectCall, RawRing) come from the headline scenario on the same core count.").AppendLine();

        double? Reference(string @case, int cores)
            => results.FirstOrDefault(r => r.Scenario == Headline && r.Case == @case && r.Cores == cores)?.MessagesPerSecond;

        foreach (var scenario in results.Select(r => r.Scenario).Distinct().OrderBy(s => s == Headline ? 0 : 1).ThenBy(s => s, StringComparer.Ordinal))
        {
            var rows = results.Where(r => r.Scenario == scenario).ToList();
            var cores = rows.Select(r => r.Cores).Distinct().Order().ToList();
            var top = cores[^1];
            var direct = Reference("DirectCall", top);
            var ring = Reference("RawRing", top);

            text.AppendLine(CultureInfo.InvariantCulture, $"## {scenario}").AppendLine();
            var headers = cores.Select(c => $"msg/s, {Cores(c)}")
                .Concat(cores.Select(c => $"× Rx ObserveOn, {Cores(c)}"))
                .Concat([$"% of DirectCall ({top})", $"% of RawRing ({top})", $"bytes/msg ({top})", $"work items/msg ({top})", $"lock contentions/msg ({top})"])
                .ToList();
            text.AppendLine("| case | " + string.Join(" | ", headers) + " |");
            text.AppendLine("|---|" + string.Concat(headers.Select(_ => "---:|")));
            foreach (var group in rows.GroupBy(r => r.Case).OrderByDescending(g => g.FirstOrDefault(r => r.Cores == top)?.MessagesPerSecond ?? 0))
            {
                BenchmarkResult? At(int c) => group.FirstOrDefault(r => r.Cores == c);
                var atTop = At(top);
                var cells = cores.Select(c => Rate(At(c)))
                    .Concat(cores.Select(c => Ratio(At(c)?.MessagesPerSecond, Reference("RxObserveOnTaskPool", c), "0.00×")))
                    .Concat([
                        Ratio(atTop?.MessagesPerSecond * 100, direct, "0.0"),
                        Ratio(atTop?.MessagesPerSecond * 100, ring, "0.0"),
                        Number(atTop?.BytesPerMessage, "0.##"),
                        Number(atTop?.WorkItemsPerMessage, "0.####"),
                        Number(atTop?.LockContentionsPerMessage, "0.####"),
                    ]);
                text.AppendLine(CultureInfo.InvariantCulture, $"| {group.Key} | {string.Join(" | ", cells)} |");
            }

            text.AppendLine();
            var bars = Path.Combine(outputDirectory, $"{scenario}.png");
            Charts.Bars(bars, $"{scenario}, {Cores(top)}", [.. rows.Where(r => r.Cores == top).OrderByDescending(r => r.MessagesPerSecond).Select(r => (r.Case, r.MessagesPerSecond))]);
            text.AppendLine(CultureInfo.InvariantCulture, $"![{scenario}]({Path.GetFileName(bars)})").AppendLine();
            if (cores.Count > 1)
            {
                var lines = Path.Combine(outputDirectory, $"{scenario}-cores.png");
                Charts.Lines(lines, $"{scenario}: msg/s against cores", rows.GroupBy(r => r.Case).ToDictionary(
                    g => g.Key, g => (IReadOnlyList<(int, double)>)[.. g.OrderBy(r => r.Cores).Select(r => (r.Cores, r.MessagesPerSecond))]));
                text.AppendLine(CultureInfo.InvariantCulture, $"![{scenario} across cores]({Path.GetFileName(lines)})").AppendLine();
            }
        }

        return text.ToString();
    }

    /// <summary>msg/s with the iterations' spread, e.g. "12,345,678 ±4%".</summary>
    private static string Rate(BenchmarkResult? result)
        => result is null ? "-" : string.Create(CultureInfo.InvariantCulture, $"{result.MessagesPerSecond:N0} ±{result.Spread:0%}");

    private static string Cores(int count) => count == 1 ? "1 core" : string.Create(CultureInfo.InvariantCulture, $"{count} cores");

    private static string Ratio(double? value, double? reference, string format)
        => value is { } v && reference is > 0 ? (v / reference.Value).ToString(format, CultureInfo.InvariantCulture) : "-";

    private static string Number(double? value, string format) => value is { } v ? v.ToString(format, CultureInfo.InvariantCulture) : "-";

    private static string? Option(string[] args, string name)
    {
        var at = Array.IndexOf(args, name);
        return at >= 0 && at + 1 < args.Length ? args[at + 1] : null;
    }
}
