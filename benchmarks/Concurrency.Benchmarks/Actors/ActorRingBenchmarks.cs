using BenchmarkDotNet.Attributes;

namespace Concurrency.Benchmarks.Actors;

/// <summary>
/// Armstrong's ring (<see cref="RingGame"/>): N actors, each forwarding to the next, and M tokens sent round, N × M hops a
/// run, counted where they land, checked against the game's checksum.
/// </summary>
public class ActorRingBenchmarks : ActorBenchmark
{
    /// <summary>Hops in one run at every size the scenario measures (N × M).</summary>
    public const int DefaultHops = 1_000_000;

    /// <summary>Gets or sets the game; its name is the case's parameter value, the plain program's row alike.</summary>
    [ParamsSource(nameof(Games))]
    public RingGame Game { get; set; } = ActorGames.Rings[0];

    protected override string Scenario => $"Ring {Contender}, {Game}";

    private protected override RunTotals Expected => Game.Expected;

    /// <summary>The ring games (<see cref="ActorGames.Rings"/>): <see cref="DefaultHops"/> each.</summary>
    public static IEnumerable<RingGame> Games() => ActorGames.Rings;

    [Benchmark(OperationsPerInvoke = DefaultHops)]
    public void Ring() => RunAndVerify();

    private protected override void SetUp(IActorContender contender) => Game.SetUp(contender);

    private protected override RunTotals Run(IActorContender contender) => Game.Play(contender);
}
