using System.Collections.Concurrent;
using System.Threading.Channels;

namespace Concurrency.Messaging.Nats.Tests;

/// <summary>
/// Every mode with two consumers, sharing the work or each getting everything, while the server is killed (SIGKILL) and
/// started again on its store a third of the way in: JetStream loses nothing and hands nothing to one handler twice,
/// counting every message two sharing consumers both handled; Core loses only what its consumers report.
/// </summary>
public sealed class KillTopologyTests
{
    private const int Messages = 10_000;

    public static TheoryData<NatsDelivery, bool> Runs => new()
    {
        { NatsDelivery.Core, true },
        { NatsDelivery.Core, false },
        { NatsDelivery.JetStream, true },
        { NatsDelivery.JetStream, false },
    };

    [Theory]
    [MemberData(nameof(Runs))]
    public async Task Two_consumers_through_a_server_killed_and_restarted(NatsDelivery mode, bool sharing)
    {
        using var server = NatsTestServer.StartOrSkip();
        var ct = TestContext.Current.CancellationToken;
        var subject = $"kill.{mode.ToString().ToLowerInvariant()}.{(sharing ? "shared" : "broadcast")}";
        var connections = new[] { Waiting(server, "a"), Waiting(server, "b") };
        await using var producerConnection = server.Connect("producer");
        var tallies = new[] { new Tally(Messages), new Tally(Messages) };
        var losses = new ConcurrentQueue<NatsLoss>();
        var consumers = new List<NatsPipeConsumer<byte[]>>();
        try
        {
            for (var i = 0; i < 2; i++)
            {
                var options = Options(mode, subject) with
                {
                    Group = mode == NatsDelivery.JetStream ? (sharing ? "group" : $"group{i}") : (sharing ? "group" : null),
                    LossReported = losses.Enqueue,
                };
                consumers.Add(await NatsPipe.StartConsumerAsync<byte[]>(connections[i], options, tallies[i].Record, cancellationToken: ct).DefaultTimeout());
            }

            await using var producer = await NatsPipe.StartProducerAsync<byte[]>(producerConnection, Options(mode, subject), cancellationToken: ct).DefaultTimeout();
            await Tally.PostAsync(producer, 1, Messages, n =>
            {
                if (n == Messages / 3)
                {
                    server.Server.Kill();
                    server.Server.Restart();
                }

                return Task.CompletedTask;
            }).WaitAsync(TimeSpan.FromSeconds(60), ct);

            // Core's end marker is at most once too: end once both consumers are subscribed again (see docs/nats.md).
            foreach (var connection in connections)
            {
                await TestTimeouts.WaitUntilAsync(() => connection.ConnectionState == NatsConnectionState.Open, "a consumer never reconnected");
                await connection.PingAsync(ct).AsTask().DefaultTimeout();
            }

            await producer.CompleteAsync(ct).WaitAsync(TimeSpan.FromSeconds(60), ct);
            await Task.WhenAll(consumers.Select(c => c.Completion)).WaitAsync(TimeSpan.FromSeconds(60), ct);

            var counts = consumers.Select(c => c.Counts).ToList();
            var twice = Enumerable.Range(1, Messages).Sum(n => tallies.Count(t => t.Arrivals(n) > 1));
            Assert.Equal(0, twice); // no handler got a message twice
            if (sharing)
            {
                var never = Enumerable.Range(1, Messages).Count(n => tallies.All(t => t.Arrivals(n) == 0));
                var both = Enumerable.Range(1, Messages).Count(n => tallies.All(t => t.Arrivals(n) > 0));
                var combined = NatsPipeCounts.Combine(counts);
                Assert.Equal(never, combined.Lost);
                if (mode == NatsDelivery.JetStream)
                {
                    Assert.Equal(0, never);
                    Assert.True(both <= combined.PossibleRepeats, $"{both} messages handled by both consumers, {combined.PossibleRepeats} counted as possible repeats");
                }
                else
                {
                    Assert.Equal(0, both);
                }
            }
            else
            {
                for (var i = 0; i < 2; i++)
                {
                    var never = Enumerable.Range(1, Messages).Count(n => tallies[i].Arrivals(n) == 0);
                    Assert.Equal(never, counts[i].Lost);
                    Assert.Equal(Messages, counts[i].Handled + counts[i].Lost);
                    if (mode == NatsDelivery.JetStream)
                    {
                        Assert.Equal(0, never);
                    }
                }

                Assert.Equal(counts.Sum(c => c.Lost), losses.Sum(l => l.Count));
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

    private static NatsPipeOptions Options(NatsDelivery mode, string subject) => new()
    {
        Subject = subject,
        Delivery = mode,
        ExpectedProducers = 1,
        ServerTimeout = TimeSpan.FromSeconds(25),
        AckWait = TimeSpan.FromSeconds(2),
    };

    private static NatsConnection Waiting(NatsTestServer server, string name) => new(NatsOpts.Default with { Url = server.Url, Name = name, SubPendingChannelFullMode = BoundedChannelFullMode.Wait });
}
