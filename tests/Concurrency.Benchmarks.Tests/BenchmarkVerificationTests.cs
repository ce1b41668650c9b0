using Concurrency.Benchmarks.Actors;
using Concurrency.Benchmarks.Backbone.Harness;

namespace Concurrency.Benchmarks.Tests;

/// <summary>
/// Every benchmark case runs in-process with small blocks, through its own setup, several invocations on the same path,
/// verification and cleanup, so a broken benchmark fails CI without timing anything.
/// </summary>
public sealed class BenchmarkVerificationTests
{
    /// <summary>Every case, the actor games' shrunk to a few hundred messages (<see cref="ActorBenchmarkVerificationTests.SmallCases"/>).</summary>
    public static TheoryData<string> Cases() => [.. SmallCases().Select(c => c.ToString())];

    [Theory]
    [MemberData(nameof(Cases))]
    public Task Benchmark_SeveralSmallInvocations_DeliverEveryBlockAndVerify(string name)
        => SmallCases().Single(c => c.ToString() == name).AssertVerifiedAsync(); // each block reached its check; the cleanup, the totals

    /// <summary>Every scenario is found, and each says what it verified, which the theory above asks of each of its cases.</summary>
    [Fact]
    public void Cases_CoverEveryScenario()
    {
        var scenarios = BenchmarkCase.All().Select(c => c.Type).Distinct().ToList();

        Assert.Equal(
            [
                "ActorPingPongBenchmarks", "ActorRingBenchmarks", "CapacitySweepBenchmarks", "ConnectorBenchmarks", "HeadlineBenchmarks",
                "OrderedParallelBenchmarks", "RunnerBenchmarks", "SequenceServiceBenchmarks", "TopologyBenchmarks",
            ],
            scenarios.Select(t => t.Name).Order(StringComparer.Ordinal));
        Assert.All(scenarios, t => Assert.True(typeof(IVerifiedBenchmark).IsAssignableFrom(t), t.Name));
    }

    private static IEnumerable<BenchmarkCase> SmallCases()
        => [.. BenchmarkCase.All().Where(c => !c.Type.IsSubclassOf(typeof(ActorBenchmark))), .. ActorBenchmarkVerificationTests.SmallCases()];
}
