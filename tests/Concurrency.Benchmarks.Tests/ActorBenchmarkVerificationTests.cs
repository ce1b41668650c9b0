using System.Reflection;
using Concurrency.Benchmarks.Harness;
using Concurrency.Benchmarks.Scenarios;

namespace Concurrency.Benchmarks.Tests;

/// <summary>
/// Every actor case the scenarios declare (each contender, window and ring part), shrunk to a few hundred messages, runs
/// in-process through its setup and handshake, several verified runs on the same actors, and the cleanup's shutdown.
/// </summary>
public sealed class ActorBenchmarkVerificationTests
{
    public static TheoryData<string> Cases() => [.. SmallCases().Select(c => c.ToString())];

    [Theory]
    [MemberData(nameof(Cases))]
    public async Task ActorBenchmark_SeveralSmallRuns_DeliverEveryMessageAndVerify(string name)
    {
        var benchmark = SmallCases().Single(c => c.ToString() == name);

        var verified = await benchmark.RunAsync<ActorBenchmark>();

        Assert.Equal(BenchmarkCase.Invocations, verified.VerifiedRuns);
        Assert.True(verified.VerifiedCompletion);
    }

    [Fact]
    public void RingSizes_EveryMeasuredSize_MovesTheHopsOperationsPerInvokeCounts()
        => Assert.All(ActorRingBenchmarks.Sizes(), size => Assert.Equal(ActorRingBenchmarks.DefaultHops, size.Hops));

    [Fact]
    public void PingPongCases_Found_CoverBothWindowsForEveryContender()
        => Assert.Equal(2 * ActorBenchmark.Contenders().Count(), SmallCases().Count(c => c.Type == typeof(ActorPingPongBenchmarks)));

    /// <summary>The declared cases with their sizes replaced: 2 pairs × 300 round trips, a ring of 50 actors × 20 tokens.</summary>
    private static IEnumerable<BenchmarkCase> SmallCases() => BenchmarkCase.All()
        .Where(c => c.Type.IsSubclassOf(typeof(ActorBenchmark)))
        .Select(c => c with { Parameters = [.. c.Parameters.Where(p => p.Property.Name != nameof(ActorRingBenchmarks.Size)), .. SmallSizes(c.Type)] })
        .DistinctBy(c => c.ToString());

    private static IEnumerable<(PropertyInfo Property, object? Value)> SmallSizes(Type type) => type == typeof(ActorPingPongBenchmarks)
        ? [(Property(type, nameof(ActorPingPongBenchmarks.Pairs)), 2), (Property(type, nameof(ActorPingPongBenchmarks.RoundTrips)), 600)]
        : [(Property(type, nameof(ActorRingBenchmarks.Size)), new RingSize(50, 20))];

    private static PropertyInfo Property(Type type, string name) => type.GetProperty(name) ?? throw new MissingMemberException(type.Name, name);
}
