using NATS.Client.JetStream;
using NATS.Client.JetStream.Models;

namespace Concurrency.Messaging.Nats.Tests;

/// <summary>
/// NATS.Net 3.3.2's JetStream calls this package makes, against the server Debian packages (2.9.10; the client's own
/// tests run against 2.11 and later): if one of these fails, the server is too old for the package, whatever else passes.
/// </summary>
public sealed class ServerSmokeTests
{
    [Fact]
    public async Task The_packaged_server_answers_every_JetStream_call_the_package_makes()
    {
        using var server = NatsTestServer.StartOrSkip();
        await using var connection = server.Connect("smoke");
        var ct = TestContext.Current.CancellationToken;
        var js = new NatsJSContext(connection);

        // A file-stored stream with a de-duplication window, created and then updated to the same configuration.
        var config = new StreamConfig("SMOKE", ["smoke", "smoke._end"])
        {
            Storage = StreamConfigStorage.File,
            Discard = StreamConfigDiscard.New,
            MaxBytes = 1 << 20,
            DuplicateWindow = TimeSpan.FromMinutes(2),
        };
        await js.CreateOrUpdateStreamAsync(config, ct).AsTask().DefaultTimeout();
        await js.CreateOrUpdateStreamAsync(config, ct).AsTask().DefaultTimeout();

        // Publishing with a message id: the second publish under the same id is answered "duplicate".
        var first = await js.PublishAsync("smoke", new byte[] { 1 }, opts: new NatsJSPubOpts { MsgId = "a" }, cancellationToken: ct).AsTask().DefaultTimeout();
        var again = await js.PublishAsync("smoke", new byte[] { 1 }, opts: new NatsJSPubOpts { MsgId = "a" }, cancellationToken: ct).AsTask().DefaultTimeout();
        Assert.Null(first.Error);
        Assert.False(first.Duplicate);
        Assert.True(again.Duplicate);
        await js.PublishAsync("smoke", new byte[] { 2 }, opts: new NatsJSPubOpts { MsgId = "b" }, cancellationToken: ct).AsTask().DefaultTimeout();
        await js.PublishAsync("smoke._end", new byte[] { 3 }, opts: new NatsJSPubOpts { MsgId = "c" }, cancellationToken: ct).AsTask().DefaultTimeout();

        // A durable pull consumer with explicit acknowledgements, filtered to the data subject; its pending counts.
        var durable = await js.CreateOrUpdateConsumerAsync("SMOKE", new ConsumerConfig("group")
        {
            DurableName = "group",
            FilterSubject = "smoke",
            AckPolicy = ConsumerConfigAckPolicy.Explicit,
            AckWait = TimeSpan.FromSeconds(5),
            MaxAckPending = 10,
        }, ct).AsTask().DefaultTimeout();
        var received = new List<byte>();
        await foreach (var message in durable.FetchAsync<byte[]>(new NatsJSFetchOpts { MaxMsgs = 2, Expires = TimeSpan.FromSeconds(5) }, cancellationToken: ct))
        {
            received.Add(message.Data![0]);
            Assert.Equal(1UL, message.Metadata!.Value.NumDelivered);
            Assert.False(JetStreamConsumerLoop<byte[]>.Redelivered(message)); // the consumer's own reading of the delivery count
            await message.AckAsync(cancellationToken: ct);
        }

        Assert.Equal([1, 2], received);

        // A message given back (not acknowledged) comes again, its delivery count up; the consumer reads it the same way.
        await js.PublishAsync("smoke", new byte[] { 4 }, opts: new NatsJSPubOpts { MsgId = "d" }, cancellationToken: ct).AsTask().DefaultTimeout();
        for (var delivery = 1UL; delivery <= 2; delivery++)
        {
            await foreach (var message in durable.FetchAsync<byte[]>(new NatsJSFetchOpts { MaxMsgs = 1, Expires = TimeSpan.FromSeconds(5) }, cancellationToken: ct))
            {
                Assert.Equal(4, message.Data![0]);
                Assert.Equal(delivery, message.Metadata!.Value.NumDelivered);
                Assert.Equal(delivery > 1, JetStreamConsumerLoop<byte[]>.Redelivered(message));
                await (delivery == 1 ? message.NakAsync(cancellationToken: ct) : message.AckAsync(cancellationToken: ct));
            }
        }
        await TestTimeouts.WaitUntilAsync(
            async () =>
            {
                await durable.RefreshAsync(ct);
                return durable.Info.NumPending == 0 && durable.Info.NumAckPending == 0;
            },
            "the consumer's pending counts never reached zero after every message was acknowledged");

        // The end markers' reader as the package makes it: a named ephemeral consumer filtered to the end subject.
        var ends = await js.CreateOrUpdateConsumerAsync("SMOKE", new ConsumerConfig
        {
            Name = "ends-1",
            FilterSubject = "smoke._end",
            AckPolicy = ConsumerConfigAckPolicy.None,
            DeliverPolicy = ConsumerConfigDeliverPolicy.All,
            InactiveThreshold = TimeSpan.FromMinutes(1),
        }, ct).AsTask().DefaultTimeout();
        Assert.Equal(3, await FirstByte(ends, ct));

        // What 2.9 does not do (docs/nats.md): an ordered consumer sends its filter as a list (filter_subjects, 2.10), which
        // 2.9 ignores, so it reads the whole stream.
        var older = connection.ServerInfo!.Version.StartsWith("2.9.", StringComparison.Ordinal);
        var ordered = await js.CreateOrderedConsumerAsync("SMOKE", new NatsJSOrderedConsumerOpts { FilterSubjects = ["smoke._end"] }, ct).AsTask().DefaultTimeout();
        Assert.Equal(older ? 1 : 3, await FirstByte(ordered, ct));
    }

    private static async Task<byte> FirstByte(INatsJSConsumer consumer, CancellationToken ct)
    {
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(ct);
        stop.CancelAfter(TestTimeouts.Default);
        await foreach (var message in consumer.ConsumeAsync<byte[]>(cancellationToken: stop.Token))
        {
            return message.Data![0];
        }

        throw new InvalidOperationException("The consumer delivered nothing.");
    }
}
