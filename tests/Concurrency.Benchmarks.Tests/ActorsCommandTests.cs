using Concurrency.Benchmarks.Actors;
using Concurrency.Benchmarks.Runs;
using Xunit;

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
        var directory = Directory.CreateTempSubdirectory("actors-quick-");
        try
        {
            var (output, error) = (new StringWriter(), new StringWriter());

            var exit = await Task.Run(() => Program.Run(["actors", "--quick", "--steady-seconds", "0.1", "--out", directory.FullName], output, error), TestContext.Current.CancellationToken)
                .WaitAsync(Limit, TestContext.Current.CancellationToken);

            Assert.True(exit == 0, error.ToString());
            var table = File.ReadAllText(Assert.Single(Directory.GetFiles(directory.FullName, "ACTORS-*.md")));
            Assert.Contains("Quick run (--quick)", table, StringComparison.Ordinal);
            Assert.All(ActorContenders.Names, name => Assert.Contains(name, table, StringComparison.Ordinal));
            var results = ResultSet.Read(Assert.Single(Directory.GetFiles(directory.FullName, "ACTORS-*.json")));
            // Six games, every contender, cold and steady.
            Assert.Equal(6 * ActorContenders.Names.Count() * 2, results.Measurements.Count);
            Assert.All(results.Measurements, m => Assert.True(m.Median > 0, m.ToString()));
        }
        finally
        {
            directory.Delete(recursive: true);
        }
    }
}
