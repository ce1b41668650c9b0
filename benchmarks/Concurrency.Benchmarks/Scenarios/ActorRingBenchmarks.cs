using BenchmarkDotNet.Attributes;
using Concurrency.Benchmarks.Actors;
using Concurrency.Benchmarks.Harness;

namespace Concurrency.Benchmarks.Scenarios;

/// <summary>
/// Armstrong's ring: N actors, each forwarding to the next, and M tokens sent round, N × M hops a run, counted where they
/// land. The checksum is the sum of the numbers (1 to M) of the tokens that completed a lap at the starter: M(M + 1)/2.
/// </summary>
public class ActorRingBenchmarks : ActorBenchmark
{
    /// <summary>Hops in one run at every size the scenario measures (N × M).</summary>
    public const int DefaultHops = 1_000_000;

    [ParamsSource(nameof(Sizes))]
    public RingSize Size { get; set; } = new(1_000, 1_000);

    [ParamsAllValues]
    public RingPart Part { get; set; }

    protected override string Scenario => $"Ring {Contender} {Size} {Part}";

    private protected override RunTotals Expected => new(Size.Hops, (long)Size.Messages * (Size.Messages + 1) / 2);

    /// <summary>A thousand actors with a thousand tokens, and ten thousand with a hundred: <see cref="DefaultHops"/> each.</summary>
    public static IEnumerable<RingSize> Sizes() => [new(1_000, 1_000), new(10_000, 100)];

    [Benchmark(OperationsPerInvoke = DefaultHops)]
    public void Ring() => RunAndVerify();

    private protected override void SetUp(IActorContender contender) => contender.SetUpRing(Size.Actors);

    private protected override RunTotals Run(IActorContender contender) => contender.RunRing(Size.Messages, Part == RingPart.AllAtOnce);
}
