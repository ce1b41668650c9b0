namespace Concurrency.Messaging.Nats.Tests;

public sealed class NatsPipeOptionsTests
{
    private static readonly NatsPipeOptions Valid = new() { Subject = "orders.eu", Delivery = NatsDelivery.JetStream, Group = "billing" };

    public static TheoryData<NatsPipeOptions, string> Invalid => new()
    {
        { Valid with { Subject = "" }, "subject" },
        { Valid with { Subject = "orders.*" }, "subject" },
        { Valid with { Subject = "orders.>" }, "subject" },
        { Valid with { Subject = "orders..eu" }, "subject" },
        { Valid with { Subject = "orders eu" }, "subject" },
        { Valid with { Subject = "orders._end" }, "subject" },
        { Valid with { Delivery = default }, "Delivery must be chosen" },
        { Valid with { Group = null }, "needs a Group" },
        { Valid with { Group = "a.b" }, "group" },
        { Valid with { Stream = "a.b" }, "stream name" },
        { Valid with { ExpectedProducers = 0 }, "ExpectedProducers" },
        { Valid with { PublishWindow = 0 }, "PublishWindow" },
        { Valid with { MaxAckPending = -1 }, "MaxAckPending" },
        { Valid with { MaxProducers = 0 }, "MaxProducers" },
        { Valid with { StreamMaxBytes = 0 }, "StreamMaxBytes" },
        { Valid with { RepeatWindow = 32 }, "RepeatWindow" },
        { Valid with { ServerTimeout = TimeSpan.Zero }, "must be positive" },
        { Valid with { AckWait = TimeSpan.FromSeconds(-1) }, "must be positive" },
        { Valid with { ServerTimeout = TimeSpan.FromMinutes(3) }, "shorter than DuplicateWindow" },
    };

    [Theory]
    [MemberData(nameof(Invalid))]
    public async Task A_consumer_with_invalid_options_is_refused_before_it_connects(NatsPipeOptions options, string says)
    {
        // No server is reachable at this address: the options are checked first.
        await using var connection = new NatsConnection(NatsOpts.Default with { Url = "nats://127.0.0.1:1" });
        var error = await Assert.ThrowsAsync<ArgumentException>(() => NatsPipe.StartConsumerAsync<byte[]>(connection, options, (byte[] _) => { }, cancellationToken: TestContext.Current.CancellationToken));
        Assert.Contains(says, error.Message, StringComparison.OrdinalIgnoreCase);
        Assert.Equal("options", error.ParamName);
    }

    [Fact]
    public async Task A_core_consumer_needs_no_group_and_a_producer_never_does()
    {
        await using var connection = new NatsConnection(NatsOpts.Default with { Url = "nats://127.0.0.1:1" });
        var core = Valid with { Delivery = NatsDelivery.Core, Group = null, ServerTimeout = TimeSpan.FromMilliseconds(300) };

        // Past validation, both fail only for want of a server.
        await Assert.ThrowsAsync<NatsPipeException>(() => NatsPipe.StartConsumerAsync<byte[]>(connection, core, (byte[] _) => { }, cancellationToken: TestContext.Current.CancellationToken));
        await Assert.ThrowsAsync<NatsPipeException>(() => NatsPipe.StartProducerAsync<byte[]>(connection, Valid with { Group = null, ServerTimeout = TimeSpan.FromMilliseconds(300) }, cancellationToken: TestContext.Current.CancellationToken));
    }

    [Fact]
    public async Task Null_arguments_are_refused()
    {
        await using var connection = new NatsConnection(NatsOpts.Default with { Url = "nats://127.0.0.1:1" });
        var ct = TestContext.Current.CancellationToken;
        await Assert.ThrowsAsync<ArgumentNullException>("connection", () => NatsPipe.StartProducerAsync<byte[]>(null!, Valid, cancellationToken: ct));
        await Assert.ThrowsAsync<ArgumentNullException>("options", () => NatsPipe.StartProducerAsync<byte[]>(connection, null!, cancellationToken: ct));
        await Assert.ThrowsAsync<ArgumentNullException>("handler", () => NatsPipe.StartConsumerAsync<byte[]>(connection, Valid, (Action<byte[]>)null!, cancellationToken: ct));
        await Assert.ThrowsAsync<ArgumentNullException>("handler", () => NatsPipe.StartConsumerAsync<byte[]>(connection, Valid, (Func<byte[], CancellationToken, ValueTask>)null!, cancellationToken: ct));
        Assert.Throws<ArgumentNullException>("counts", () => NatsPipeCounts.Combine(null!));
    }

    [Fact]
    public void The_stream_is_named_after_the_subject_unless_named()
    {
        Assert.Equal("ORDERS_EU", Valid.StreamName);
        Assert.Equal("mine", (Valid with { Stream = "mine" }).StreamName);
    }
}
