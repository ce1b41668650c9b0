using BenchmarkDotNet.Attributes;
using Concurrency.Benchmarks.Actors;
using Concurrency.Benchmarks.Harness;

namespace Concurrency.Benchmarks.Scenarios;

/// <summary>
/// Actor ping-pong: one pinger–ponger pair per core, each pair keeping <see cref="InFlight"/> pings in flight (1: pure
/// latency, one message at a time; 100: a full window, throughput). A run is <see cref="DefaultRoundTrips"/> round trips
/// shared evenly among the pairs; each round trip is two messages delivered.
/// </summary>
public class ActorPingPongBenchmarks : ActorBenchmark
{
    /// <summary>
    /// Round trips in one run, split among the pairs: about 4 ms at 57 M msg/s up to 30 ms at 7.5 M msg/s on a 2-core
    /// machine. Divisible by every pair count from 1 to 12 and 14 to 16; another count rounds each pair's share up, so the
    /// run moves at most pairs − 1 round trips (under 0.02 %) more than the per-message time counts.
    /// </summary>
    public const int DefaultRoundTrips = 110_880;

    [Params(1, 100)]
    public int InFlight { get; set; } = 1;

    /// <summary>Gets or sets the pairs (default: one per core the job allows).</summary>
    public int Pairs { get; set; } = Environment.ProcessorCount;

    /// <summary>Gets or sets the round trips in one run; OperationsPerInvoke assumes the default.</summary>
    public int RoundTrips { get; set; } = DefaultRoundTrips;

    private long RoundTripsPerPair => (RoundTrips + Pairs - 1) / Pairs;

    protected override string Scenario => $"Ping-pong {Contender}, {Pairs} pairs, {InFlight} in flight";

    private protected override RunTotals Expected
        => new(2 * Pairs * RoundTripsPerPair, Pairs * (RoundTripsPerPair * (RoundTripsPerPair + 1) / 2));

    [Benchmark(OperationsPerInvoke = 2 * DefaultRoundTrips)]
    public void PingPong() => RunAndVerify();

    private protected override void SetUp(IActorContender contender) => contender.SetUpPingPong(Pairs, InFlight);

    private protected override RunTotals Run(IActorContender contender) => contender.RunPingPong(RoundTripsPerPair);
}
