using Concurrency.Messaging.Tests.Pipes;

namespace Concurrency.Messaging.Tests.Stress;

/// <summary>
/// Pushes 3,000,000 messages through every pipe and topology, each id checked off in a bitmap: enough traffic to expose
/// a one-in-a-million loss. Behind the Stress trait; CI runs it twice, once on all cores and once pinned to one core,
/// where CPU contention exposes races that two free cores hide.
/// </summary>
[Trait("Category", "Stress")]
public sealed class PipeStressTests
{
    private const int Messages = 3_000_000;

    public static TheoryData<string> Cases()
    {
        var cases = new TheoryData<string>();
        foreach (var kind in StressCase.Kinds.Keys)
        {
            foreach (var topology in StressCase.Topologies)
            {
                if (StressCase.Supports(kind, topology))
                {
                    cases.Add($"{kind} {topology}");
                }
            }
        }

        return cases;
    }

    [Theory]
    [MemberData(nameof(Cases))]
    public async Task Pipe_ThreeMillionMessages_EveryIdExactlyOnce(string name)
    {
        var @case = StressCase.Parse(name);
        var perProducer = Messages / @case.Producers;
        var logs = Enumerable.Range(0, @case.Consumers).Select(_ => new DeliveryLog(@case.Producers, perProducer)).ToArray();
        await using var pipe = Pipe.Create(
            @case.Kind,
            logs.Select(l => (Action<long>)l.Record).ToArray(),
            @case.Options with { Producers = @case.Producers, Distribution = @case.Distribution });

        await ProducerGroup.RunAsync(pipe, @case.Producers, perProducer, StressCase.Budget);
        pipe.Complete();
        await pipe.Completion.WaitAsync(StressCase.Budget, TestContext.Current.CancellationToken);

        if (@case.Distribution == PipeDistribution.WorkSharing)
        {
            DeliveryLog.AssertExactlyOnceAcross(logs, @case.Producers, perProducer);
        }
        else
        {
            foreach (var log in logs)
            {
                log.AssertExactlyOnceInOrder(@case.Producers, perProducer);
            }
        }

        Assert.Equal(0, pipe.UnhandledCount);
        Assert.Equal(0, pipe.DroppedCount);
    }
}
