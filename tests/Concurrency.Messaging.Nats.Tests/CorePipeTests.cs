using System.Collections.Concurrent;
using System.Threading.Channels;
using Concurrency.Messaging.Pipes;

namespace Concurrency.Messaging.Nats.Tests;

/// <summary>Core NATS: at most once, and every loss found from the producers' sequence numbers, never lost in silence.</summary>
public sealed class CorePipeTests
{
    private const int Messages = 10_000;

    private static NatsPipeOptions Options(string subject, string? group = null, int? producers = 1, Action<NatsLoss>? losses = null) => new()
    {
        Subject = subject,
        Delivery = NatsDelivery.Core,
        Group = group,
        ExpectedProducers = producers,
        ServerTimeout = TimeSpan.FromSeconds(10),
        LossReported = losses,
    };

    /// <summary>A consumer's connection that holds back the server rather than dropping what its handler has not taken yet.</summary>
    private static NatsConnection Waiting(NatsTestServer server, string name) => new(NatsOpts.Default with { Url = server.Url, Name = name, SubPendingChannelFullMode = BoundedChannelFullMode.Wait });

    [Fact]
    public async Task Messages_posted_before_anyone_subscribed_are_reported_lost_when_the_consumer_sees_the_gap()
    {
        using var server = NatsTestServer.StartOrSkip();
        await using var consumerConnection = Waiting(server, "consumer");
        await using var producerConnection = server.Connect("producer");
        var losses = new ConcurrentQueue<NatsLoss>();
        var options = Options("core.late", losses: losses.Enqueue);
        await using var producer = await NatsPipe.StartProducerAsync<byte[]>(producerConnection, options, cancellationToken: TestContext.Current.CancellationToken).DefaultTimeout();
        await Tally.PostAsync(producer, 1, 100).DefaultTimeout();
        await producerConnection.PingAsync(TestContext.Current.CancellationToken).AsTask().DefaultTimeout(); // the server has them, and nobody to give them to

        var tally = new Tally(200);
        await using var consumer = await NatsPipe.StartConsumerAsync<byte[]>(consumerConnection, options, tally.Record, cancellationToken: TestContext.Current.CancellationToken).DefaultTimeout();
        await Tally.PostAsync(producer, 101, 100).DefaultTimeout();
        await producer.CompleteAsync(TestContext.Current.CancellationToken).DefaultTimeout();
        await consumer.Completion.DefaultTimeout();

        Assert.Equal(new NatsLoss(producer.ProducerId, 1, 100), Assert.Single(losses));
        Assert.Equal((100L, 100L), (consumer.Counts.Handled, consumer.Counts.Lost));
        Assert.Equal((100, 0, 100), tally.Summary());
    }

    [Fact]
    public async Task A_consumer_that_falls_behind_loses_what_its_client_drops_and_reports_every_one()
    {
        using var server = NatsTestServer.StartOrSkip();

        // The client's default: a full subscription channel drops the newest message. Made small, and the handler slow.
        await using var consumerConnection = new NatsConnection(NatsOpts.Default with { Url = server.Url, Name = "slow", SubPendingChannelCapacity = 16, SubPendingChannelFullMode = BoundedChannelFullMode.DropNewest });
        await using var producerConnection = server.Connect("producer");
        var losses = new ConcurrentQueue<NatsLoss>();
        var tally = new Tally(Messages);
        var options = Options("core.slow", losses: losses.Enqueue);
        await using var consumer = await NatsPipe.StartConsumerAsync<byte[]>(
            consumerConnection,
            options,
            async (m, ct) =>
            {
                tally.Record(m);
                if (BitConverter.ToInt64(m) % 1000 == 1)
                {
                    await Task.Delay(20, ct); // falls behind a burst now and then
                }
            },
            cancellationToken: TestContext.Current.CancellationToken).DefaultTimeout();
        await using var producer = await NatsPipe.StartProducerAsync<byte[]>(producerConnection, options, cancellationToken: TestContext.Current.CancellationToken).DefaultTimeout();

        await Tally.PostAllAsync(producer, Messages);
        await consumer.Completion.DefaultTimeout();

        var counts = consumer.Counts;
        Assert.True(counts.Lost > 0, "nothing was dropped: the test did not play a slow consumer");
        tally.AssertOnlyReportedLosses(counts, losses);
    }

    [Fact]
    public async Task A_server_killed_and_restarted_mid_run_loses_only_what_the_consumer_reports()
    {
        using var server = NatsTestServer.StartOrSkip();
        await using var consumerConnection = Waiting(server, "consumer");
        await using var producerConnection = server.Connect("producer");
        var losses = new ConcurrentQueue<NatsLoss>();
        var tally = new Tally(Messages);
        var options = Options("core.crash", losses: losses.Enqueue) with { ServerTimeout = TimeSpan.FromSeconds(20) };
        await using var consumer = await NatsPipe.StartConsumerAsync<byte[]>(consumerConnection, options, tally.Record, cancellationToken: TestContext.Current.CancellationToken).DefaultTimeout();
        await using var producer = await NatsPipe.StartProducerAsync<byte[]>(producerConnection, options, cancellationToken: TestContext.Current.CancellationToken).DefaultTimeout();

        await Tally.PostAsync(producer, 1, Messages, async n =>
        {
            if (n == Messages / 3)
            {
                server.Server.Kill();
                server.Server.Restart();

                // Both clients find the new server on their own; the consumer's subscriptions are back once it answers.
                await TestTimeouts.WaitUntilAsync(() => consumerConnection.ConnectionState == NatsConnectionState.Open && producerConnection.ConnectionState == NatsConnectionState.Open, "the clients never reconnected");
                await consumerConnection.PingAsync(TestContext.Current.CancellationToken).AsTask().DefaultTimeout();
            }
        }).DefaultTimeout();
        await producer.CompleteAsync(TestContext.Current.CancellationToken).DefaultTimeout();
        await consumer.Completion.DefaultTimeout();

        var counts = consumer.Counts;
        tally.AssertOnlyReportedLosses(counts, losses);
    }

    [Fact]
    public async Task A_payload_that_is_not_an_envelope_is_counted_and_never_handed_over()
    {
        using var server = NatsTestServer.StartOrSkip();
        await using var connection = Waiting(server, "both");
        var tally = new Tally(10);
        var options = Options("core.malformed");
        await using var consumer = await NatsPipe.StartConsumerAsync<byte[]>(connection, options, tally.Record, cancellationToken: TestContext.Current.CancellationToken).DefaultTimeout();
        await connection.PublishAsync("core.malformed", "not an envelope"u8.ToArray(), cancellationToken: TestContext.Current.CancellationToken).AsTask().DefaultTimeout();
        await connection.PublishAsync("core.malformed._end", new byte[3], cancellationToken: TestContext.Current.CancellationToken).AsTask().DefaultTimeout();
        await using var producer = await NatsPipe.StartProducerAsync<byte[]>(connection, options, cancellationToken: TestContext.Current.CancellationToken).DefaultTimeout();
        await Tally.PostAllAsync(producer, 10);
        await consumer.Completion.DefaultTimeout();

        tally.AssertEachOnce();
        Assert.Equal((10L, 2L, 0L), (consumer.Counts.Handled, consumer.Counts.Malformed, consumer.Counts.Lost));
    }

    [Fact]
    public async Task Producers_beyond_the_bound_are_refused_so_a_consumer_memory_stays_bounded()
    {
        using var server = NatsTestServer.StartOrSkip();
        await using var connection = Waiting(server, "both");
        var options = Options("core.bounded", producers: null) with { MaxProducers = 2 };
        var handled = 0;
        await using var consumer = await NatsPipe.StartConsumerAsync<byte[]>(connection, options, _ => Interlocked.Increment(ref handled), cancellationToken: TestContext.Current.CancellationToken).DefaultTimeout();
        for (var p = 0; p < 3; p++)
        {
            await using var producer = await NatsPipe.StartProducerAsync<byte[]>(connection, options, cancellationToken: TestContext.Current.CancellationToken).DefaultTimeout();
            await Tally.PostAsync(producer, 1, 10).DefaultTimeout();
            await producer.CompleteAsync(TestContext.Current.CancellationToken).DefaultTimeout();
        }

        await TestTimeouts.WaitUntilAsync(() => consumer.Counts.Refused == 10, "the third producer's messages were not refused");
        await consumer.StopAsync(TestContext.Current.CancellationToken).DefaultTimeout();
        await consumer.Completion.DefaultTimeout();
        Assert.Equal(20, handled);
        Assert.Equal(2, consumer.Counts.Producers.Count);
    }

    [Fact]
    public async Task A_handler_that_throws_faults_the_consumer_with_the_handler_exception()
    {
        using var server = NatsTestServer.StartOrSkip();
        await using var connection = Waiting(server, "both");
        var options = Options("core.throws");
        await using var consumer = await NatsPipe.StartConsumerAsync<byte[]>(
            connection,
            options,
            m =>
            {
                if (BitConverter.ToInt64(m) == 5)
                {
                    throw new InvalidDataException("five");
                }
            },
            cancellationToken: TestContext.Current.CancellationToken).DefaultTimeout();
        await using var producer = await NatsPipe.StartProducerAsync<byte[]>(connection, options, cancellationToken: TestContext.Current.CancellationToken).DefaultTimeout();
        await Tally.PostAsync(producer, 1, 10).DefaultTimeout();

        var fault = await Assert.ThrowsAsync<MessageHandlerException>(() => consumer.Completion.DefaultTimeout());
        Assert.IsType<InvalidDataException>(fault.InnerException);
        Assert.True(fault.UnhandledCount >= 1);
        Assert.Equal(4, consumer.Counts.Handled);
        Assert.True(consumer.Counts.Unhandled >= 1, "the message whose handler threw was not counted");
    }

    [Fact]
    public async Task A_consumer_whose_connection_goes_away_before_its_producers_ended_faults_rather_than_completing()
    {
        using var server = NatsTestServer.StartOrSkip();
        var connection = Waiting(server, "consumer");
        await using var consumer = await NatsPipe.StartConsumerAsync<byte[]>(connection, Options("core.gone"), (byte[] _) => { }, cancellationToken: TestContext.Current.CancellationToken).DefaultTimeout();
        await connection.DisposeAsync();

        var fault = await Assert.ThrowsAsync<NatsPipeException>(() => consumer.Completion.DefaultTimeout());
        Assert.Contains("ended", fault.Message, StringComparison.Ordinal);

        // Disposing twice is harmless; stopping a disposed consumer says so.
        await consumer.DisposeAsync();
        await consumer.DisposeAsync();
        await Assert.ThrowsAsync<ObjectDisposedException>(() => consumer.StopAsync(TestContext.Current.CancellationToken));
    }
}
