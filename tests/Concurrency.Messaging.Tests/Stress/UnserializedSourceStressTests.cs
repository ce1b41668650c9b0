using Concurrency.Messaging.Tests.Races;

namespace Concurrency.Messaging.Tests.Stress;

/// <summary>Every drop-in operator fed from two threads at once, 1,000,000 messages each (see <see cref="UnserializedSource"/>).</summary>
[Trait("Category", "Stress")]
public sealed class UnserializedSourceStressTests
{
    [Theory]
    [MemberData(nameof(UnserializedSource.Operators), MemberType = typeof(UnserializedSource))]
    public Task Operator_SourceCallsOnNextFromTwoThreads_MillionEach_EveryMessageOnce(string name)
        => UnserializedSource.RunAsync(name, 1_000_000, StressCase.Budget);
}
