namespace Concurrency.Benchmarks.Backbone.Reporting;

/// <summary>
/// A reference each row of a scenario is compared with: the ratio of the row's median to the peer's, with its interval,
/// and a verdict where the two medians' intervals do not overlap.
/// </summary>
/// <param name="Title">The column's name, e.g. "Rx ObserveOn (TaskPool)".</param>
/// <param name="Scenario">The scenario the peer's row is in.</param>
/// <param name="Contender">The peer's contender for a given row (null where the row has none).</param>
/// <param name="SameConditions">Whether the peer must share the row's other parameters (selector cost, subscribers, …).</param>
public sealed record Peer(string Title, string Scenario, Func<BenchmarkResult, string?> Contender, bool SameConditions)
{
    /// <summary>The peer's result on the row's job, if it was measured.</summary>
    public BenchmarkResult? Find(BenchmarkResult row, IEnumerable<BenchmarkResult> results)
        => Contender(row) is { } contender
            ? results.FirstOrDefault(r => r.Scenario == Scenario && r.Contender == contender && r.Job == row.Job
                && (!SameConditions || r.Conditions == row.Conditions))
            : null;
}
