using System.Collections.Concurrent;
using Concurrency.Messaging.Pipes;
using NATS.Client.JetStream;

namespace Concurrency.Messaging.Nats.Tests;

/// <summary>JetStream: stored before it counts as sent, resent under its id, and handed to a living consumer's handler once.</summary>
public sealed class JetStreamPipeTests
{
    private const int Messages = 10_000;

    private static NatsPipeOptions Options(string subject, string group = "group", int? producers = 1) => new()
    {
        Subject = subject,
        Delivery = NatsDelivery.JetStream,
        Group = group,
        ExpectedProducers = producers,
        ServerTimeout = TimeSpan.FromSeconds(20),
        AckWait = TimeSpan.FromSeconds(2),
    };

    [Fact]
    public async Task A_server_killed_and_restarted_mid_run_loses_nothing_and_hands_nothing_over_twice()
    {
        using var server = NatsTestServer.StartOrSkip();
        await using var consumerConnection = server.Connect("consumer");
        await using var producerConnection = server.Connect("producer");
        var tally = new Tally(Messages);
        var options = Options("js.crash") with { ServerTimeout = TimeSpan.FromSeconds(25) };
        await using var consumer = await NatsPipe.StartConsumerAsync<byte[]>(consumerConnection, options, tally.Record, cancellationToken: TestContext.Current.CancellationToken).DefaultTimeout();
        await using var producer = await NatsPipe.StartProducerAsync<byte[]>(producerConnection, options, cancellationToken: TestContext.Current.CancellationToken).DefaultTimeout();

        await Tally.PostAsync(producer, 1, Messages, n =>
        {
            if (n == Messages / 3)
            {
                // Publishes in flight and acknowledgements on their way are cut off; the store survives.
                server.Server.Kill();
                server.Server.Restart();
            }

            return Task.CompletedTask;
        }).WaitAsync(TimeSpan.FromSeconds(60), TestContext.Current.CancellationToken);
        await producer.CompleteAsync(TestContext.Current.CancellationToken).WaitAsync(TimeSpan.FromSeconds(60), TestContext.Current.CancellationToken);
        await consumer.Completion.WaitAsync(TimeSpan.FromSeconds(60), TestContext.Current.CancellationToken);

        tally.AssertEachOnce();
        Assert.Equal(Messages, producer.Confirmed);
        var counts = consumer.Counts;
        Assert.Equal((Messages, 0L), (counts.Handled, counts.Lost));
    }

    [Fact]
    public async Task A_handler_that_throws_leaves_its_message_for_the_group_and_faults_the_consumer()
    {
        using var server = NatsTestServer.StartOrSkip();
        await using var first = server.Connect("first");
        await using var second = server.Connect("second");
        var options = Options("js.throws", producers: 1);
        var tally = new Tally(100);
        await using var failing = await NatsPipe.StartConsumerAsync<byte[]>(
            first,
            options,
            m =>
            {
                if (BitConverter.ToInt64(m) == 5)
                {
                    throw new InvalidDataException("five");
                }

                tally.Record(m);
            },
            cancellationToken: TestContext.Current.CancellationToken).DefaultTimeout();
        await using var producer = await NatsPipe.StartProducerAsync<byte[]>(second, options, cancellationToken: TestContext.Current.CancellationToken).DefaultTimeout();
        await Tally.PostAllAsync(producer, 100);

        var fault = await Assert.ThrowsAsync<MessageHandlerException>(() => failing.Completion.DefaultTimeout());
        Assert.IsType<InvalidDataException>(fault.InnerException);
        Assert.Equal(4, failing.Counts.Handled);

        // Another member of the group gets what the first did not acknowledge, the message that failed included.
        await using var next = await NatsPipe.StartConsumerAsync<byte[]>(second, options, tally.Record, cancellationToken: TestContext.Current.CancellationToken).DefaultTimeout();
        await next.Completion.DefaultTimeout();
        tally.AssertEachOnce();
        Assert.Equal(96, next.Counts.Handled);
    }

    [Fact]
    public async Task A_consumer_that_dies_between_handling_and_acknowledging_repeats_that_message_in_the_next_and_it_is_counted()
    {
        using var server = NatsTestServer.StartOrSkip();
        var options = Options("js.dies", producers: 1);
        var tally = new Tally(20);
        await using var producerConnection = server.Connect("producer");
        var dying = server.Connect("dying");
        var handledBeforeDeath = 0;
        var died = new TaskCompletionSource();
        var first = await NatsPipe.StartConsumerAsync<byte[]>(
            dying,
            options,
            async (m, _) =>
            {
                tally.Record(m);
                if (BitConverter.ToInt64(m) == 10)
                {
                    // The process dies here: handled, never acknowledged.
                    handledBeforeDeath = 10;
                    await dying.DisposeAsync();
                    died.TrySetResult();
                }
            },
            cancellationToken: TestContext.Current.CancellationToken).DefaultTimeout();
        await using var producer = await NatsPipe.StartProducerAsync<byte[]>(producerConnection, options, cancellationToken: TestContext.Current.CancellationToken).DefaultTimeout();
        await Tally.PostAllAsync(producer, 20);
        await died.Task.DefaultTimeout();
        await first.DisposeAsync();

        await using var survivorConnection = server.Connect("survivor");
        await using var survivor = await NatsPipe.StartConsumerAsync<byte[]>(survivorConnection, options, tally.Record, cancellationToken: TestContext.Current.CancellationToken).DefaultTimeout();
        await survivor.Completion.DefaultTimeout();

        // What a crash can repeat: the message it handled and never acknowledged (and any whose acknowledgement was still in
        // the dead connection's buffer), each handed over again by the survivor and counted there, never silently.
        Assert.Equal(10, handledBeforeDeath);
        Assert.Equal(2, tally.Arrivals(10));
        var repeated = Enumerable.Range(1, 20).Where(n => tally.Arrivals(n) > 1).ToList();
        Assert.All(repeated, n => Assert.InRange(n, 1, 10));
        Assert.All(Enumerable.Range(1, 20), n => Assert.InRange(tally.Arrivals(n), 1, 2));
        Assert.True(survivor.Counts.PossibleRepeats >= repeated.Count, $"{repeated.Count} messages handed over again, {survivor.Counts.PossibleRepeats} counted as possible repeats");
    }

    [Fact]
    public async Task An_earlier_run_end_marker_left_in_the_stream_does_not_complete_the_next_run_early()
    {
        using var server = NatsTestServer.StartOrSkip();
        await using var connection = server.Connect("both");
        var options = Options("js.runs", group: "billing");
        for (var run = 1; run <= 2; run++)
        {
            // The same stream and group each run, as a service restarted every day would have: run 1's marker stays.
            var tally = new Tally(10);
            await using var consumer = await NatsPipe.StartConsumerAsync<byte[]>(connection, options, tally.Record, cancellationToken: TestContext.Current.CancellationToken).DefaultTimeout();
            await using var producer = await NatsPipe.StartProducerAsync<byte[]>(connection, options, cancellationToken: TestContext.Current.CancellationToken).DefaultTimeout();
            await Tally.PostAsync(producer, 1, 10).DefaultTimeout();
            await producer.CompleteAsync(TestContext.Current.CancellationToken).DefaultTimeout();
            await consumer.Completion.DefaultTimeout();

            // Completed by its own run's producer, after handling its messages (one completed by run 1's marker would
            // have stopped pulling before them).
            tally.AssertEachOnce();
            Assert.Equal(producer.ProducerId, Assert.Single(consumer.Counts.Producers, p => p.Posted is not null).Producer);
        }
    }

    [Fact]
    public async Task A_payload_that_is_not_an_envelope_is_counted_and_set_aside()
    {
        using var server = NatsTestServer.StartOrSkip();
        await using var connection = server.Connect("both");
        var tally = new Tally(10);
        var options = Options("js.malformed");
        await using var consumer = await NatsPipe.StartConsumerAsync<byte[]>(connection, options, tally.Record, cancellationToken: TestContext.Current.CancellationToken).DefaultTimeout();
        var js = new NatsJSContext(connection);
        (await js.PublishAsync("js.malformed", "not an envelope"u8.ToArray(), cancellationToken: TestContext.Current.CancellationToken).AsTask().DefaultTimeout()).EnsureSuccess();
        await using var producer = await NatsPipe.StartProducerAsync<byte[]>(connection, options, cancellationToken: TestContext.Current.CancellationToken).DefaultTimeout();
        await Tally.PostAllAsync(producer, 10);
        await consumer.Completion.DefaultTimeout();

        tally.AssertEachOnce();
        Assert.Equal((10L, 1L), (consumer.Counts.Handled, consumer.Counts.Malformed));
    }

    [Fact]
    public async Task A_producer_whose_server_is_gone_waits_on_its_window_faults_after_its_timeout_and_refuses_overlapping_posts()
    {
        using var server = NatsTestServer.StartOrSkip();
        await using var connection = server.Connect("producer");
        var options = Options("js.gone") with { PublishWindow = 1, ServerTimeout = TimeSpan.FromSeconds(2) };
        await using var producer = await NatsPipe.StartProducerAsync<byte[]>(connection, options, cancellationToken: TestContext.Current.CancellationToken).DefaultTimeout();
        server.Server.Kill();

        await producer.PostAsync(Tally.Message(1), TestContext.Current.CancellationToken).AsTask().DefaultTimeout(); // takes the window
        var waiting = producer.PostAsync(Tally.Message(2), TestContext.Current.CancellationToken).AsTask();      // waits on it
        Assert.False(waiting.IsCompleted);
        await Assert.ThrowsAsync<InvalidOperationException>(() => producer.PostAsync(Tally.Message(3), TestContext.Current.CancellationToken).AsTask());

        // Message 1 is never confirmed: after the timeout the producer faults, and the waiting post says so.
        var fault = await Assert.ThrowsAsync<NatsPipeException>(() => waiting.DefaultTimeout());
        Assert.Contains("not confirmed", fault.Message, StringComparison.Ordinal);
        await Assert.ThrowsAsync<NatsPipeException>(() => producer.CompleteAsync(TestContext.Current.CancellationToken).DefaultTimeout());
        Assert.Equal(0, producer.Confirmed);
    }

    [Fact]
    public async Task A_server_that_is_not_there_at_start_is_a_clear_error_within_the_timeout_that_names_no_secret()
    {
        using var listener = new System.Net.Sockets.TcpListener(System.Net.IPAddress.Loopback, 0);
        listener.Start();
        var port = ((System.Net.IPEndPoint)listener.LocalEndpoint).Port;
        listener.Stop(); // a free port nobody listens on

        await using var connection = new NatsConnection(NatsOpts.Default with { Url = $"nats://alice:s3cr3t@127.0.0.1:{port}" });
        var options = Options("js.nobody") with { ServerTimeout = TimeSpan.FromSeconds(1) };
        var started = System.Diagnostics.Stopwatch.StartNew();
        var error = await Assert.ThrowsAsync<NatsPipeException>(() => NatsPipe.StartProducerAsync<byte[]>(connection, options, cancellationToken: TestContext.Current.CancellationToken).DefaultTimeout());
        Assert.True(started.Elapsed < TimeSpan.FromSeconds(15), $"took {started.Elapsed}");
        Assert.Contains($"127.0.0.1:{port}", error.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("s3cr3t", error.ToString(), StringComparison.Ordinal);
        await Assert.ThrowsAsync<NatsPipeException>(() => NatsPipe.StartConsumerAsync<byte[]>(connection, options, (byte[] _) => { }, cancellationToken: TestContext.Current.CancellationToken).DefaultTimeout());
    }
}
