using System.Globalization;
using System.Text;
using Concurrency.Benchmarks.Actors;

namespace Concurrency.Benchmarks.Backbone.Reporting;

/// <summary>
/// REPORT.md: where the numbers came from (commits, machines, commands), how to read them, and per scenario a table of
/// medians with intervals, CPU per message, ratios to the peers with verdicts, ceilings and allocation/threading metrics,
/// with a bar chart (and a chart across core counts) beside it.
/// </summary>
public static class ReportWriter
{
    public static string Write(MergedResults merged, string outputDirectory, string reportCommand)
    {
        var text = new StringBuilder();
        text.AppendLine("# Benchmark report").AppendLine();
        if (merged.MixedCommits)
        {
            text.AppendLine(CultureInfo.InvariantCulture, $"> **⚠ MIXED COMMITS.** These results were measured at {merged.Commits.Count} different commits ({string.Join(", ", merged.Commits.Select(c => $"`{c}`"))}) and merged only because `--allow-mixed-commits` was given. A difference between rows from different commits is not a difference of the paths alone.");
            text.AppendLine();
        }
        else
        {
            text.AppendLine(CultureInfo.InvariantCulture, $"Commit: `{merged.Sources[0].CommitLabel}`, for every source below.").AppendLine();
        }

        foreach (var machine in merged.Sources.Select(s => s.Machine.Identity).Distinct())
        {
            text.AppendLine(CultureInfo.InvariantCulture, $"Machine: {machine}.");
        }

        text.AppendLine();
        HowToRead(text);
        Sources(text, merged, reportCommand);
        foreach (var scenario in merged.Scenarios())
        {
            Scenario(text, merged, scenario, outputDirectory);
        }

        return text.ToString();
    }

    private static void HowToRead(StringBuilder text)
    {
        text.AppendLine("## How to read it").AppendLine();
        text.AppendLine("- **Steady state, verified.** Each case builds its path once and keeps it alive; every invocation moves one block of preallocated messages end to end (posts them all, then waits until every consumer has handled them) and checks each consumer's count, checksum and per-producer order, and the cleanup checks the path's completion and totals. A mismatch fails the benchmark, so every row is a verified result. BenchmarkDotNet chooses how many blocks fill an iteration (about 250 ms), over several launches (processes), and no iteration is dropped as an outlier.");
        text.AppendLine(CultureInfo.InvariantCulture, $"- **msg/s** is the median over every measured iteration of every launch; **[low–high]** is its 95% confidence interval, by {Bootstrap.Method}.");
        text.AppendLine(CultureInfo.InvariantCulture, $"- **× peer** is the ratio of the row's median to the peer's on the same job, with the interval of that ratio from the same bootstrap (both sides resampled). **faster** or **slower** is said only where the two medians' intervals do not overlap; otherwise **within noise**; with fewer than {Cells.MinimumSamples} measured iterations on either side, **too few samples**. An interval from a single launch shows only the spread within that process, not from one process to the next.");
        text.AppendLine(CultureInfo.InvariantCulture, $"- **CPU ns/msg** is the benchmark process's CPU time (every thread) over {CpuSample.Scope}, divided by the messages those iterations moved, launches pooled. A consumer that spins shows its cost here even when its msg/s looks good.");
        text.AppendLine(CultureInfo.InvariantCulture, $"- **% of DirectCall / RawRing** compares the row's median with the headline's two ceilings on the same job (no handoff at all; the cheapest handoff we can write). **{Ceilings.Flag}** marks a row whose median exceeds a ceiling on the same job: then the ceiling is wrong, and neither number should be trusted until it is fixed.");
        text.AppendLine();
    }

    private static void Sources(StringBuilder text, MergedResults merged, string reportCommand)
    {
        text.AppendLine("## Sources").AppendLine();
        text.AppendLine("| results file | commit | measured (UTC) | produced by |");
        text.AppendLine("|---|---|---|---|");
        foreach (var source in merged.Sources)
        {
            text.AppendLine(CultureInfo.InvariantCulture, $"| `{source.FileName}` | `{source.CommitLabel}` | {source.WrittenUtc:yyyy-MM-dd HH:mm} | `{MergedResults.RunCommand(source)}` |");
        }

        text.AppendLine().AppendLine(CultureInfo.InvariantCulture, $"This report: `{reportCommand}`.").AppendLine();
    }

    private static void Scenario(StringBuilder text, MergedResults merged, string scenario, string outputDirectory)
    {
        var results = merged.Results;
        var jobs = merged.Jobs(scenario);
        var top = jobs[^1];
        var peers = Peers.For(scenario);
        var rows = merged.Rows(scenario, top);
        var launches = results.Where(r => r.Scenario == scenario).Select(r => r.Launches.Count).Distinct().Order();
        var iterations = results.Where(r => r.Scenario == scenario).Select(r => r.Samples).Distinct().Order();
        var shortest = results.Where(r => r.Scenario == scenario).Min(r => r.ShortestIterationMilliseconds);

        text.AppendLine(CultureInfo.InvariantCulture, $"## {scenario}").AppendLine();
        if (ScenarioNotes.For(scenario) is { } note)
        {
            text.AppendLine(note).AppendLine();
        }

        text.AppendLine(CultureInfo.InvariantCulture, $"Launches per row: {string.Join(", ", launches)}; measured iterations per row: {string.Join(", ", iterations)}; shortest measured iteration: {shortest:0} ms.").AppendLine();
        var headers = jobs.Select(j => $"msg/s, {j} [95% CI]")
            .Concat(jobs.Select(j => $"CPU ns/msg, {j}"))
            .Concat(peers.SelectMany(p => jobs.Select(j => $"× {p.Title}, {j}")))
            .Concat([$"% of DirectCall ({top})", $"% of RawRing ({top})", $"bytes/msg ({top})", $"work items/msg ({top})", $"lock contentions/msg ({top})", "notes"])
            .ToList();
        text.AppendLine("| case | " + string.Join(" | ", headers) + " |");
        text.AppendLine("|---|" + string.Concat(headers.Select(_ => "---:|")));
        foreach (var row in rows)
        {
            BenchmarkResult? At(string job) => row.FirstOrDefault(r => r.Job == job);
            var atTop = At(top);
            var cells = jobs.Select(j => Cells.Rate(At(j)))
                .Concat(jobs.Select(j => Cells.Cpu(At(j))))
                .Concat(peers.SelectMany(p => jobs.Select(j => Cells.Ratio(At(j), p, results))))
                .Concat([
                    Cells.PercentOf(atTop, Ceilings.DirectCall, results),
                    Cells.PercentOf(atTop, Ceilings.RawRing, results),
                    Cells.Number(atTop?.BytesPerMessage, "0.##"),
                    Cells.Number(atTop?.WorkItemsPerMessage, "0.####"),
                    Cells.Number(atTop?.LockContentionsPerMessage, "0.####"),
                    Cells.Notes(row, results),
                ]);
            text.AppendLine(CultureInfo.InvariantCulture, $"| {row.Key} | {string.Join(" | ", cells)} |");
        }

        text.AppendLine();
        if (scenario == "ActorRingBenchmarks")
        {
            RingWallTimes(text, rows, jobs);
        }

        var bars = Path.Combine(outputDirectory, $"{scenario}.png");
        Charts.Bars(bars, $"{scenario}, {top}: median msg/s", [.. rows.Select(r => r.FirstOrDefault(x => x.Job == top)).OfType<BenchmarkResult>()
            .Select(r => (r.Label, r.Throughput.Point, Families.Of(r.Contender)))]);
        text.AppendLine(CultureInfo.InvariantCulture, $"![{scenario}]({Path.GetFileName(bars)})").AppendLine();
        if (jobs.Count > 1)
        {
            var lines = Path.Combine(outputDirectory, $"{scenario}-cores.png");
            Charts.Lines(lines, $"{scenario}: median msg/s against cores", rows.ToDictionary(
                g => g.Key, g => (IReadOnlyList<(int, double)>)[.. g.OrderBy(r => r.Cores).Select(r => (r.Cores, r.Throughput.Point))]));
            text.AppendLine(CultureInfo.InvariantCulture, $"![{scenario} across cores]({Path.GetFileName(lines)})").AppendLine();
        }
    }

    /// <summary>
    /// The ring's figure as the seed gives it: wall time per run. Every ring size is a million hops, so a run's time is the
    /// hops over the rate, and its interval the same bounds inverted.
    /// </summary>
    private static void RingWallTimes(StringBuilder text, IReadOnlyList<IGrouping<string, BenchmarkResult>> rows, IReadOnlyList<string> jobs)
    {
        text.AppendLine("Wall time per run (N × M hops), ms, median [95% CI]; the seed's Erlang on a 2-core Core 2 Duo: 600 ms one at a time, 400 ms all at once (N = M = 1000).").AppendLine();
        text.AppendLine("| case | " + string.Join(" | ", jobs) + " |");
        text.AppendLine("|---|" + string.Concat(jobs.Select(_ => "---:|")));
        foreach (var row in rows)
        {
            var cells = jobs.Select(job => row.FirstOrDefault(r => r.Job == job) is { } result ? WallTime(result) : "");
            text.AppendLine(CultureInfo.InvariantCulture, $"| {row.Key} | {string.Join(" | ", cells)} |");
        }

        text.AppendLine();
    }

    private static string WallTime(BenchmarkResult result)
    {
        var hops = ActorGames.RingNamed(result.Conditions) is { } game ? game.Hops : double.NaN;
        var rate = result.Throughput;
        return string.Create(CultureInfo.InvariantCulture, $"{1e3 * hops / rate.Point:0.#} [{1e3 * hops / rate.High:0.#}–{1e3 * hops / rate.Low:0.#}]");
    }
}
