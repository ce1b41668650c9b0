using System.Reflection;
using Concurrency.Benchmarks.Actors;

namespace Concurrency.Benchmarks.Tests;

/// <summary>
/// The actor cases the scenarios declare (each contender, window and ring part), shrunk to a few hundred messages
/// (<see cref="SmallCases"/>), which <see cref="BenchmarkVerificationTests"/> runs in-process through setup and handshake,
/// several verified runs on the same actors, and the cleanup's shutdown.
/// </summary>
public sealed class ActorBenchmarkVerificationTests
{
    [Fact]
    public void Games_EveryRing_MovesTheHopsOperationsPerInvokeCounts()
        => Assert.All(ActorRingBenchmarks.Games(), game => Assert.Equal(ActorRingBenchmarks.DefaultHops, game.Hops));

    [Fact]
    public void PingPongCases_Found_CoverBothWindowsForEveryContender()
        => Assert.Equal(2 * ActorBenchmark.Contenders().Count(), SmallCases().Count(c => c.Type == typeof(ActorPingPongBenchmarks)));

    /// <summary>The declared cases with their sizes replaced: 2 pairs × 300 round trips, a ring of 50 actors × 20 tokens (in the case's part).</summary>
    public static IEnumerable<BenchmarkCase> SmallCases() => BenchmarkCase.All()
        .Where(c => c.Type.IsSubclassOf(typeof(ActorBenchmark)))
        .Select(c => c with { Parameters = [.. c.Parameters.Select(Small), .. SmallPairs(c.Type)] })
        .DistinctBy(c => c.ToString());

    private static (PropertyInfo Property, object? Value) Small((PropertyInfo Property, object? Value) parameter)
        => parameter.Value is RingGame ring ? (parameter.Property, ring with { Actors = 50, Tokens = 20 }) : parameter;

    private static IEnumerable<(PropertyInfo Property, object? Value)> SmallPairs(Type type) => type == typeof(ActorPingPongBenchmarks)
        ? [(Property(type, nameof(ActorPingPongBenchmarks.Pairs)), 2), (Property(type, nameof(ActorPingPongBenchmarks.RoundTrips)), 600)]
        : [];

    private static PropertyInfo Property(Type type, string name) => type.GetProperty(name) ?? throw new MissingMemberException(type.Name, name);
}
