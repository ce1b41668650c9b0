using Concurrency.Benchmarks.Harness;
using Xunit;

namespace Concurrency.Benchmarks.Tests;

/// <summary>
/// Every benchmark case runs once in-process with a small message count, through its own setup, method, verification and
/// cleanup, so a broken benchmark fails CI without timing anything.
/// </summary>
public sealed class BenchmarkVerificationTests
{
    public static TheoryData<string> Cases() => [.. BenchmarkCase.All().Select(c => c.ToString())];

    [Theory]
    [MemberData(nameof(Cases))]
    public async Task Benchmark_OneSmallInvocation_DeliversEveryMessageAndVerifies(string name)
    {
        var benchmark = BenchmarkCase.All().Single(c => c.ToString() == name);

        var instance = await Task.Run(benchmark.Run, TestContext.Current.CancellationToken)
            .WaitAsync(TimeSpan.FromMinutes(1), TestContext.Current.CancellationToken);

        // Every scenario goes through the shared harness, and the invocation really reached its count-and-checksum check.
        var verified = Assert.IsAssignableFrom<PathBenchmark>(instance);
        Assert.Equal(1, verified.VerifiedRuns);
    }

    [Fact]
    public void Cases_CoverEveryScenario()
    {
        var scenarios = BenchmarkCase.All().Select(c => c.Type.Name).Distinct().ToList();

        Assert.Equal(
            ["CapacitySweepBenchmarks", "ConnectorBenchmarks", "HeadlineBenchmarks", "OrderedParallelBenchmarks", "TopologyBenchmarks"],
            scenarios.Order(StringComparer.Ordinal));
    }

    [Fact]
    public void VerifyEach_OneMessageMissing_Throws()
    {
        var consumer = new CountingConsumer();
        foreach (var message in Message.Preallocate(100).Skip(1))
        {
            consumer.Handle(message);
        }

        Assert.Throws<InvalidOperationException>(() => Delivery.VerifyEach([consumer], 100, "test", ordered: false));
    }

    [Fact]
    public void VerifyEach_LossBalancedByDuplicate_ThrowsOnChecksum()
    {
        var consumer = new CountingConsumer();
        var messages = Message.Preallocate(100);
        foreach (var message in messages.Take(99).Append(messages[0]))
        {
            consumer.Handle(message);
        }

        Assert.Throws<InvalidOperationException>(() => Delivery.VerifyEach([consumer], 100, "test", ordered: false));
    }

    [Fact]
    public void VerifyEach_OutOfOrderWithOneProducer_Throws()
    {
        var consumer = new CountingConsumer();
        var messages = Message.Preallocate(100);
        foreach (var message in messages.Reverse())
        {
            consumer.Handle(message);
        }

        Assert.Throws<InvalidOperationException>(() => Delivery.VerifyEach([consumer], 100, "test", ordered: true));
    }

    [Fact]
    public void VerifyShared_SplitAcrossConsumers_Passes()
    {
        var consumers = new[] { new CountingConsumer(), new CountingConsumer() };
        var messages = Message.Preallocate(100);
        for (var i = 0; i < messages.Length; i++)
        {
            consumers[i % 2].Handle(messages[i]);
        }

        Delivery.VerifyShared(consumers, 100, "test");
    }
}
