using Concurrency.Benchmarks.Scenarios;

namespace Concurrency.Benchmarks.Tests;

/// <summary>
/// Every sequence service case runs in-process with small blocks, through its setup, several invocations on the same
/// service, each block's verification and the cleanup's, so a broken case fails CI without timing anything.
/// </summary>
public sealed class SequenceServiceBenchmarkTests
{
    public static TheoryData<string> Cases() => [.. SequenceCases().Select(c => c.ToString())];

    [Theory]
    [MemberData(nameof(Cases))]
    public async Task SequenceService_SeveralSmallInvocations_VerifyEveryBlockAndTheEnd(string name)
    {
        var benchmark = SequenceCases().Single(c => c.ToString() == name);

        var verified = await benchmark.RunAsync<SequenceServiceBenchmarks>();

        Assert.Equal(BenchmarkCase.Invocations, verified.VerifiedRuns);
        Assert.True(verified.VerifiedCompletion);
    }

    [Fact]
    public void Cases_EveryPathAtEveryClientCount()
    {
        Assert.Equal(Enum.GetValues<SequenceServicePath>().Length * 4, SequenceCases().Count());
        Assert.Equal(0, BenchmarkCase.SmallMessageCount % 8); // the small block divides among 1, 2, 4 and 8 clients
    }

    private static IEnumerable<BenchmarkCase> SequenceCases() =>
        BenchmarkCase.All().Where(c => c.Type == typeof(SequenceServiceBenchmarks));
}
