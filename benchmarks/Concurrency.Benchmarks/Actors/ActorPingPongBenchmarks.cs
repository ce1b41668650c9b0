using BenchmarkDotNet.Attributes;

namespace Concurrency.Benchmarks.Actors;

/// <summary>
/// Actor ping-pong (<see cref="PingPongGame"/>): one pinger–ponger pair per core, each pair keeping the game's pings in
/// flight. A run is <see cref="DefaultRoundTrips"/> round trips shared evenly among the pairs; each round trip is two
/// messages delivered.
/// </summary>
public class ActorPingPongBenchmarks : ActorBenchmark
{
    /// <summary>
    /// Round trips in one run, split among the pairs: about 4 ms at 57 M msg/s up to 30 ms at 7.5 M msg/s on a 2-core
    /// machine. Divisible by every pair count from 1 to 12 and 14 to 16; another count rounds each pair's share up, so the
    /// run moves at most pairs − 1 round trips (under 0.02 %) more than the per-message time counts.
    /// </summary>
    public const int DefaultRoundTrips = 110_880;

    /// <summary>Gets or sets the game; its name is the case's parameter value, the plain program's row alike.</summary>
    [ParamsSource(nameof(Games))]
    public PingPongGame Game { get; set; } = ActorGames.PingPongs[0];

    /// <summary>Gets or sets the pairs (default: one per core the job allows).</summary>
    public int Pairs { get; set; } = Environment.ProcessorCount;

    /// <summary>Gets or sets the round trips in one run; OperationsPerInvoke assumes the default.</summary>
    public int RoundTrips { get; set; } = DefaultRoundTrips;

    private long RoundTripsPerPair => (RoundTrips + Pairs - 1) / Pairs;

    protected override string Scenario => $"{Contender}, {Game}, {Pairs} pairs";

    private protected override RunTotals Expected => PingPongGame.Expected(Pairs, RoundTripsPerPair);

    /// <summary>The ping-pong games (<see cref="ActorGames.PingPongs"/>).</summary>
    public static IEnumerable<PingPongGame> Games() => ActorGames.PingPongs;

    [Benchmark(OperationsPerInvoke = 2 * DefaultRoundTrips)]
    public void PingPong() => RunAndVerify();

    private protected override void SetUp(IActorContender contender) => Game.SetUp(contender, Pairs);

    private protected override RunTotals Run(IActorContender contender) => PingPongGame.Play(contender, RoundTripsPerPair);
}
