using Concurrency.Benchmarks.Harness;

namespace Concurrency.Benchmarks.Tests;

/// <summary>
/// Every benchmark case runs in-process with small blocks, through its own setup, several invocations on the same path,
/// verification and cleanup, so a broken benchmark fails CI without timing anything.
/// </summary>
public sealed class BenchmarkVerificationTests
{
    /// <summary>The cases on the shared harness; scenarios with a harness of their own have their own test class.</summary>
    public static TheoryData<string> Cases() => [.. PathCases().Select(c => c.ToString())];

    [Theory]
    [MemberData(nameof(Cases))]
    public async Task Benchmark_SeveralSmallInvocations_DeliverEveryBlockAndVerify(string name)
    {
        var benchmark = PathCases().Single(c => c.ToString() == name);

        var verified = await benchmark.RunAsync<PathBenchmark>();

        // Every scenario goes through the shared harness: each invocation reached its per-block check, and the cleanup
        // saw the path complete and checked the totals of every block.
        Assert.Equal(BenchmarkCase.Invocations, verified.VerifiedRuns);
        Assert.True(verified.VerifiedCompletion);
    }

    /// <summary>
    /// Every scenario is found, and each goes through one of the two harnesses, so its cases run either in the theory
    /// above (paths) or in <see cref="ActorBenchmarkVerificationTests"/> (actors).
    /// </summary>
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
        Assert.All(scenarios, t => Assert.True(
            t.IsSubclassOf(typeof(PathBenchmark)) || t.IsSubclassOf(typeof(ActorBenchmark)) || t == typeof(Scenarios.SequenceServiceBenchmarks), t.Name));
    }

    private static IEnumerable<BenchmarkCase> PathCases() => BenchmarkCase.All().Where(c => c.Type.IsSubclassOf(typeof(PathBenchmark)));
}
