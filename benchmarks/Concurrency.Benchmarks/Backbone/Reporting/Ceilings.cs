namespace Concurrency.Benchmarks.Backbone.Reporting;

/// <summary>
/// The two yardsticks of the headline, DirectCall (no handoff) and RawRing (the cheapest handoff we can write), and the
/// check that no row beats them on the same job: a row that does means the ceiling is wrong (or the row skips work), so the
/// report flags it rather than print a result nobody should believe.
/// </summary>
public static class Ceilings
{
    public const string DirectCall = "DirectCall";
    public const string RawRing = "RawRing";

    /// <summary>Gets the flag the report prints beside a row that beats a ceiling.</summary>
    public const string Flag = "⚠ beats its ceiling";

    /// <summary>The ceilings whose median <paramref name="row"/>'s exceeds on its job, e.g. ["RawRing"].</summary>
    public static IReadOnlyList<string> Beaten(BenchmarkResult row, IEnumerable<BenchmarkResult> results)
    {
        var beaten = new List<string>();
        foreach (var ceiling in Applicable(row))
        {
            var limit = Find(ceiling, row.Job, results);
            if (limit is not null && limit != row && row.Throughput.Point > limit.Throughput.Point)
            {
                beaten.Add(ceiling);
            }
        }

        return beaten;
    }

    public static BenchmarkResult? Find(string ceiling, string job, IEnumerable<BenchmarkResult> results)
        => results.FirstOrDefault(r => r.Scenario == Peers.Headline && r.Contender == ceiling && r.Job == job);

    /// <summary>
    /// DirectCall bounds every row. RawRing bounds rows that hand each message to one thread after another: not the
    /// connectors' fan-outs (no handoff at all) and not work-sharing, where consumers split the messages between them.
    /// </summary>
    private static IEnumerable<string> Applicable(BenchmarkResult row)
    {
        if (row.Scenario == Peers.Headline && row.Contender == DirectCall)
        {
            yield break;
        }

        yield return DirectCall;
        if (row.Scenario != "ConnectorBenchmarks" && !row.Contender.Contains("work-sharing", StringComparison.Ordinal)
            && !(row.Scenario == Peers.Headline && row.Contender == RawRing))
        {
            yield return RawRing;
        }
    }
}
