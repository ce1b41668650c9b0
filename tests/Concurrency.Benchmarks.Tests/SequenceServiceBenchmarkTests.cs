using Concurrency.Benchmarks.Topologies;

namespace Concurrency.Benchmarks.Tests;

/// <summary>
/// The sequence service's cases, which <see cref="BenchmarkVerificationTests"/> runs in-process with small blocks, through
/// setup, several invocations on the same service, each block's verification and the cleanup's.
/// </summary>
public sealed class SequenceServiceBenchmarkTests
{
    [Fact]
    public void Cases_EveryPathAtEveryClientCount()
    {
        Assert.Equal(Enum.GetValues<SequenceServicePath>().Length * 4, SequenceCases().Count());
        Assert.Equal(0, BenchmarkCase.SmallMessageCount % 8); // the small block divides among 1, 2, 4 and 8 clients
    }

    private static IEnumerable<BenchmarkCase> SequenceCases() =>
        BenchmarkCase.All().Where(c => c.Type == typeof(SequenceServiceBenchmarks));
}
