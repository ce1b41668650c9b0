
namespace Concurrency.Benchmarks.Backbone.Reporting;

/// <summary>
/// The results of every source file, one per case and job: where two files measured the same case on the same job, the
/// newer one wins. Knows which commits the sources came from, which the report must state and may refuse to mix.
/// </summary>
public sealed record MergedResults(IReadOnlyList<ResultSource> Sources, IReadOnlyList<BenchmarkResult> Results)
{
    public const string Command = "dotnet run -c Release --project benchmarks/Concurrency.Benchmarks";

    /// <summary>Gets the distinct commits the sources were measured at.</summary>
    public IReadOnlyList<string> Commits => [.. Sources.Select(s => s.Commit).Distinct()];

    public bool MixedCommits => Commits.Count > 1;

    public static MergedResults Merge(IReadOnlyList<ResultSource> sources)
    {
        var merged = new Dictionary<(string, string), BenchmarkResult>();
        foreach (var source in sources.OrderBy(s => s.WrittenUtc))
        {
            foreach (var result in source.Results)
            {
                merged[(result.Benchmark, result.Job)] = result;
            }
        }

        return new MergedResults(sources, [.. merged.Values]);
    }

    /// <summary>The scenarios present, the headline first.</summary>
    public IEnumerable<string> Scenarios()
        => Results.Select(r => r.Scenario).Distinct().OrderBy(s => s == Peers.Headline ? 0 : 1).ThenBy(s => s, StringComparer.Ordinal);

    /// <summary>A scenario's jobs, fewest cores first.</summary>
    public IReadOnlyList<string> Jobs(string scenario)
        => [.. Results.Where(r => r.Scenario == scenario).GroupBy(r => r.Job).OrderBy(g => g.First().Cores).ThenBy(g => g.Key, StringComparer.Ordinal).Select(g => g.Key)];

    /// <summary>A scenario's rows (each across its jobs), grouped by their other parameters, fastest first on <paramref name="topJob"/>.</summary>
    public IReadOnlyList<IGrouping<string, BenchmarkResult>> Rows(string scenario, string topJob)
        => [.. Results.Where(r => r.Scenario == scenario)
            .GroupBy(r => r.Label)
            .OrderBy(g => g.First().Conditions, NaturalOrder.Instance)
            .ThenByDescending(g => g.FirstOrDefault(r => r.Job == topJob)?.Throughput.Point ?? 0)];

    /// <summary>The command line that produced a source's results, as recorded in its provenance.</summary>
    public static string RunCommand(ResultSource source)
        => source.Provenance is { Arguments.Length: > 0 } provenance ? $"{Command} -- {provenance.Arguments}" : Command;
}
