using System.Threading.Channels;

namespace Concurrency.Messaging.Nats.Tests;

/// <summary>
/// The topologies of in-process pipes, in both modes, with 10,000 messages checked off by number: one consumer (in the
/// order posted), two sharing the work (each number handled once by the two, their counts reconciled), two each getting
/// everything. A contract both modes keep while nothing fails.
/// </summary>
public sealed class TopologyTests
{
    private const int Messages = 10_000;

    public enum Topology
    {
        One,
        Sharing,
        Broadcast,
    }

    public static TheoryData<NatsDelivery, Topology> Runs => new()
    {
        { NatsDelivery.Core, Topology.One },
        { NatsDelivery.Core, Topology.Sharing },
        { NatsDelivery.Core, Topology.Broadcast },
        { NatsDelivery.JetStream, Topology.One },
        { NatsDelivery.JetStream, Topology.Sharing },
        { NatsDelivery.JetStream, Topology.Broadcast },
    };

    [Theory]
    [MemberData(nameof(Runs))]
    public async Task Every_message_reaches_the_consumers_the_topology_promises(NatsDelivery mode, Topology topology)
    {
        using var server = NatsTestServer.StartOrSkip();
        var ct = TestContext.Current.CancellationToken;
        var subject = $"topology.{mode.ToString().ToLowerInvariant()}.{topology.ToString().ToLowerInvariant()}";
        var count = topology == Topology.One ? 1 : 2;

        // A consumer's connection holds the server back rather than dropping what its handler has not taken yet.
        var connections = Enumerable.Range(0, count).Select(i => new NatsConnection(NatsOpts.Default with { Url = server.Url, Name = $"consumer-{i}", SubPendingChannelFullMode = BoundedChannelFullMode.Wait })).ToList();
        await using var producerConnection = server.Connect("producer");
        var tallies = Enumerable.Range(0, count).Select(_ => new Tally(Messages)).ToList();
        var orders = Enumerable.Range(0, count).Select(_ => new List<long>()).ToList();
        var consumers = new List<NatsPipeConsumer<byte[]>>();
        try
        {
            for (var i = 0; i < count; i++)
            {
                var (tally, order) = (tallies[i], orders[i]);
                consumers.Add(await NatsPipe.StartConsumerAsync<byte[]>(connections[i], Options(mode, subject, topology, i), m => { tally.Record(m); order.Add(BitConverter.ToInt64(m)); }, cancellationToken: ct).DefaultTimeout());
            }

            await using var producer = await NatsPipe.StartProducerAsync<byte[]>(producerConnection, Options(mode, subject, topology, 0), cancellationToken: ct).DefaultTimeout();
            await Tally.PostAllAsync(producer, Messages);
            Assert.Equal(Messages, producer.Confirmed);
            await Task.WhenAll(consumers.Select(c => c.Completion)).DefaultTimeout();

            var counts = consumers.Select(c => c.Counts).ToList();
            Assert.All(counts, c => Assert.Equal((0L, 0L, 0L, 0L), (c.Lost, c.Repeats, c.Malformed, c.Unhandled)));
            if (topology == Topology.Sharing)
            {
                // Each number once across the two, each consumer some of them, and the counts reconcile.
                var arrivals = Enumerable.Range(1, Messages).Select(n => tallies.Sum(t => t.Arrivals(n)));
                Assert.All(arrivals, a => Assert.Equal(1, a));
                Assert.All(counts, c => Assert.True(c.Handled > 0, $"one consumer took everything: {string.Join(", ", counts.Select(x => x.Handled))}"));
                var combined = NatsPipeCounts.Combine(counts);
                Assert.Equal((Messages, 0L), (combined.Handled, combined.Lost));
                Assert.Equal(new NatsProducerCounts(producer.ProducerId, Messages, Messages), Assert.Single(combined.Producers));
                return;
            }

            for (var i = 0; i < count; i++)
            {
                tallies[i].AssertEachOnce();
                Assert.Equal(Enumerable.Range(1, Messages).Select(n => (long)n), orders[i]); // one producer's order kept
                Assert.Equal(new NatsProducerCounts(producer.ProducerId, Messages, Messages), Assert.Single(counts[i].Producers));
            }
        }
        finally
        {
            foreach (var consumer in consumers)
            {
                await consumer.DisposeAsync();
            }

            foreach (var connection in connections)
            {
                await connection.DisposeAsync();
            }
        }
    }

    private static NatsPipeOptions Options(NatsDelivery mode, string subject, Topology topology, int consumer) => new()
    {
        Subject = subject,
        Delivery = mode,
        Group = (mode, topology) switch
        {
            (NatsDelivery.Core, Topology.Sharing) => "workers",
            (NatsDelivery.Core, _) => null,
            (_, Topology.Broadcast) => $"group{consumer}",
            _ => "workers",
        },
        ExpectedProducers = 1,
        ServerTimeout = TimeSpan.FromSeconds(20),
    };
}
