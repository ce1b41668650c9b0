using Concurrency.Benchmarks.Actors;

namespace Concurrency.Benchmarks.Tests;

/// <summary>
/// The user-shaped actor benchmark as a smoke test: <c>actors --quick</c> plays every game on every contender in a child
/// process, each run on a fresh system and verified, and writes its table and results.
/// </summary>
public sealed class ActorsCommandTests
{
    private static readonly TimeSpan Limit = TimeSpan.FromMinutes(4);

    [Fact]
    public async Task Run_Quick_EveryContenderPlaysEveryGameColdAndSteady_AndTheResultsAreWritten()
    {
        using var run = await CommandRun.RunAsync(Limit, "actors", "--quick", "--steady-seconds", "0.1");

        run.AssertSucceeded();
        var table = File.ReadAllText(run.Single("ACTORS-*.md"));
        Assert.Contains("Quick run (--quick)", table, StringComparison.Ordinal);
        Assert.All(ActorContenders.Names, name => Assert.Contains(name, table, StringComparison.Ordinal));
        var results = ResultSet.Read(run.Single("ACTORS-*.json"));
        // Six games, every contender, cold and steady: each of those once, and nothing else.
        Assert.Equal(6 * ActorContenders.Names.Count() * 2, results.Measurements.Count);
        Assert.Equal(6, results.Measurements.Select(m => m.Conditions).Distinct().Count());
        Assert.All(ActorContenders.Names, name => Assert.Equal(
            6 * 2, results.Measurements.Where(m => m.Contender == name).Select(m => (m.Conditions, m.Phase)).Distinct().Count()));
        Assert.Equal(new[] { Phase.Cold, Phase.Steady }, results.Measurements.Select(m => m.Phase).Distinct().Order());
        Assert.All(results.Measurements, m => Assert.True(m.Median > 0, m.ToString()));
    }
}
