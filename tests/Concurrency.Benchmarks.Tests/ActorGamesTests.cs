using System.Text.Json;
using Concurrency.Benchmarks.Actors;
using Concurrency.Benchmarks.Backbone.Reporting;

namespace Concurrency.Benchmarks.Tests;

/// <summary>One name per actor game: the suite's parameters and the plain program's games name it alike, and the old names read back to it.</summary>
public sealed class ActorGamesTests
{
    [Fact]
    public void All_ThePlainProgramsGames_AreTheSuitesGamesUnderTheirNames()
        => Assert.Equal(
            [.. ActorPingPongBenchmarks.Games().Select(g => g.ToString()), .. ActorRingBenchmarks.Games().Select(g => g.ToString())],
            ActorGame.All(cores: 2, quick: false).Select(g => g.Name));

    [Fact]
    public void All_Quick_TheRingsATwentiethTheSizeAreNamedSo()
        => Assert.Equal(
            ["ring N=1,000 M=50, one token", "ring N=1,000 M=50, all tokens at once", "ring N=500 M=100, one token", "ring N=500 M=100, all tokens at once"],
            ActorGame.All(cores: 2, quick: true).Skip(2).Select(g => g.Name));

    [Theory]
    [InlineData("ping-pong, 1 in flight", 1)]
    [InlineData("InFlight=100", 100)]
    public void PingPongNamed_TheNameOrTheSuitesOldName_TheGame(string conditions, int inFlight)
        => Assert.Equal(new PingPongGame(inFlight), ActorGames.PingPongNamed(conditions));

    [Theory]
    [InlineData("ring N=1,000 M=1,000, all tokens at once", 1_000, 1_000, RingPart.AllAtOnce)]
    [InlineData("Size=1000x1000, Part=AllAtOnce", 1_000, 1_000, RingPart.AllAtOnce)]
    [InlineData("ring N=10,000 M=100, one token", 10_000, 100, RingPart.OneAtATime)]
    [InlineData("Size=10000x100, Part=OneAtATime", 10_000, 100, RingPart.OneAtATime)]
    public void RingNamed_TheNameOrTheSuitesOldName_TheGame(string conditions, int actors, int tokens, RingPart part)
        => Assert.Equal(new RingGame(actors, tokens, part), ActorGames.RingNamed(conditions));

    [Fact]
    public void Named_EveryGamesName_ReadsBackAsItself_AndNothingElseReadsAsAGame()
    {
        Assert.All(ActorGames.PingPongs, g => Assert.Equal(g, ActorGames.PingPongNamed(g.ToString())));
        Assert.All(ActorGames.Rings, g => Assert.Equal(g, ActorGames.RingNamed(g.ToString())));
        Assert.Null(ActorGames.PingPongNamed(ActorGames.Rings[0].ToString()));
        Assert.Null(ActorGames.RingNamed(ActorGames.PingPongs[0].ToString()));
        Assert.Null(ActorGames.RingNamed("Payload=64"));
    }

    [Fact]
    public void Read_ASuiteCaseOfAGame_ItsConditionsAreTheGamesName()
    {
        var game = ActorGames.Rings[1];
        using var json = JsonDocument.Parse(JsonSerializer.Serialize(new
        {
            Benchmarks = new[]
            {
                new
                {
                    DisplayInfo = $"ActorRingBenchmarks.Ring: 2 cores(Affinity=11) [Contender=AkkaNet, Game={game}]",
                    Type = "ActorRingBenchmarks",
                    Method = "Ring",
                    FullName = $"Concurrency.Benchmarks.Actors.ActorRingBenchmarks.Ring(Contender: AkkaNet, Game: {game})",
                    Measurements = new[] { new { IterationMode = "Workload", IterationStage = "Actual", LaunchIndex = 1, IterationIndex = 1, Operations = 1_000_000L, Nanoseconds = 25e6 } },
                },
            },
        }));

        var result = Assert.Single(BenchmarkResult.Read(json.RootElement, []));

        Assert.Equal("AkkaNet", result.Contender);
        Assert.Equal("ring N=1,000 M=1,000, all tokens at once", result.Conditions);
        Assert.Equal("2 cores", result.Job);
    }
}
