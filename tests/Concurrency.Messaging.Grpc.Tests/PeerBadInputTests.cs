using Google.Protobuf;

namespace Concurrency.Messaging.Grpc.Tests;

public sealed class PeerBadInputTests
{
    [Fact]
    public async Task SendAsync_MessageOverTheLimit_IsRefusedBeforeWritingAndTheStreamStaysUsable()
    {
        var ct = TestContext.Current.CancellationToken;
        await using var peers = await PeerPair.StartAsync(client: Messages.Quick() with { MaxMessageBytes = 64 * 1024 });
        var (server, client) = peers;

        var error = Assert.Throws<PeerMessageTooLargeException>(() => { _ = client.SendAsync(new PeerMessage("big", "test", new byte[64 * 1024]), ct); });
        var reply = await client.SendAsync(Messages.Numbered(7), ct).DefaultTimeout();

        Assert.Equal(64 * 1024, error.Limit);
        Assert.True(error.Size > error.Limit);
        Assert.Equal(7, Messages.Number(reply));
        Assert.Equal(1, server.HandledCount);
    }

    [Fact]
    public async Task SendAsync_LargestMessageAllowed_GoesThroughInOneBatch()
    {
        await using var peers = await PeerPair.StartAsync();
        var client = peers.Client;
        var payload = new byte[(1024 * 1024) - 64];
        Random.Shared.NextBytes(payload);

        var replies = await Task.WhenAll(Enumerable.Range(0, 6).Select(_ => client.SendAsync(new PeerMessage("big", "t", payload)))).DefaultTimeout();

        Assert.All(replies, reply => Assert.True(reply.Payload.Span.SequenceEqual(payload)));
    }

    [Fact]
    public async Task Exchange_RequestWithFieldsTheServerDoesNotKnowOrAReplysFields_ReplyCarriesOnlyTheAnswer()
    {
        var ct = TestContext.Current.CancellationToken;
        await using var server = await PeerServer.StartAsync(cancellationToken: ct).DefaultTimeout();
        await using var bystander = await WellBehavedClient.ConnectAsync(server);
        using var raw = new RawPeer(server.Address);
        using var call = await raw.OpenAsync();
        var known = new Envelope { Sequence = 1, Type = "echo", Source = "raw", Payload = ByteString.CopyFromUtf8("hi") };
        var padded = Envelope.Parser.ParseFrom([.. known.ToByteArray(), 15 << 3, 1]); // field 15, a varint this server does not know
        padded.Error = "not mine";
        padded.Forgotten = true;
        padded.TraceParent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

        await call.RequestStream.WriteAsync(new PeerBatch { Envelopes = { padded } }, ct).DefaultTimeout();
        PeerBatch replies;
        do
        {
            Assert.True(await call.ResponseStream.MoveNext(ct).DefaultTimeout(), "the server ended the stream");
            replies = call.ResponseStream.Current;
        }
        while (replies.Envelopes.Count == 0);

        Assert.Equal(known, Assert.Single(replies.Envelopes));
        await bystander.AssertServedAsync();
    }

    [Fact]
    public async Task SendAsync_HandlerThrowsWithDetailedErrorsOn_OnlyThatCallerFailsWithTheServersError()
    {
        var ct = TestContext.Current.CancellationToken;
        var options = new PeerServerOptions
        {
            EnableDetailedErrors = true,
            Handler = (request, _) => request.Type == "bad" ? throw new FormatException("cannot parse") : new ValueTask<PeerMessage>(request),
        };
        await using var peers = await PeerPair.StartAsync(options);
        var (server, client) = peers;

        var bad = client.SendAsync(Messages.Numbered(1, "bad"), ct);
        var good = client.SendAsync(Messages.Numbered(2), ct);

        var error = await Assert.ThrowsAsync<PeerRemoteException>(() => bad).DefaultTimeout();
        Assert.Contains("FormatException: cannot parse", error.Message, StringComparison.Ordinal);
        Assert.Equal(2, Messages.Number(await good.DefaultTimeout()));
        Assert.Equal(1, server.FailedCount);
    }

    [Fact]
    public async Task SendAsync_HandlerThrowsWithDetailedErrorsOff_CallerGetsNoExceptionTypeOrMessage()
    {
        var ct = TestContext.Current.CancellationToken;
        var options = new PeerServerOptions { Handler = (_, _) => throw new FormatException("secret connection string") };
        await using var peers = await PeerPair.StartAsync(options);
        var (server, client) = peers;

        var error = await Assert.ThrowsAsync<PeerRemoteException>(() => client.SendAsync(Messages.Numbered(1, "bad"), ct)).DefaultTimeout();

        Assert.Contains("handler failed", error.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("FormatException", error.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("secret", error.Message, StringComparison.Ordinal);
        Assert.Equal(1, server.FailedCount);
    }

    [Fact]
    public async Task SendAsync_ReplyOverTheServersLimit_FailsOnlyThatRequest()
    {
        var ct = TestContext.Current.CancellationToken;
        var options = new PeerServerOptions
        {
            MaxMessageBytes = 1024,
            Handler = (request, _) => new ValueTask<PeerMessage>(request.Type == "grow" ? request with { Payload = new byte[4096] } : request),
        };
        await using var peers = await PeerPair.StartAsync(options);
        var client = peers.Client;

        var error = await Assert.ThrowsAsync<PeerRemoteException>(() => client.SendAsync(Messages.Numbered(1, "grow"), ct)).DefaultTimeout();
        var reply = await client.SendAsync(Messages.Numbered(2), ct).DefaultTimeout();

        Assert.Contains("MaxMessageBytes", error.Message, StringComparison.Ordinal);
        Assert.Equal(2, Messages.Number(reply));
    }

    [Fact]
    public async Task SendAsync_RequestOverTheServersLimit_FailsBeforeItsHandlerRuns()
    {
        var ct = TestContext.Current.CancellationToken;
        var handled = 0;
        var options = new PeerServerOptions
        {
            MaxMessageBytes = 1024,
            Handler = (request, _) =>
            {
                Interlocked.Increment(ref handled);
                return new ValueTask<PeerMessage>(request);
            },
        };
        await using var peers = await PeerPair.StartAsync(options);
        var client = peers.Client;

        var error = await Assert.ThrowsAsync<PeerRemoteException>(() => client.SendAsync(new PeerMessage("big", "test", new byte[2048]), ct)).DefaultTimeout();
        var reply = await client.SendAsync(Messages.Numbered(2), ct).DefaultTimeout();

        Assert.Contains("not handled", error.Message, StringComparison.Ordinal);
        Assert.Equal(2, Messages.Number(reply));
        Assert.Equal(1, Volatile.Read(ref handled));
    }

    [Fact]
    public async Task SendAsync_WireSizeExactlyTheLimit_AcceptedByBothSidesAndOneMoreRefused()
    {
        var ct = TestContext.Current.CancellationToken;
        const int limit = 1000;
        await using var peers = await PeerPair.StartAsync(new PeerServerOptions { MaxMessageBytes = limit }, Messages.Quick() with { MaxMessageBytes = limit });
        var (server, client) = peers;
        var atLimit = new PeerMessage("t", "s", new byte[limit - new PeerMessage("t", "s", default).WireSize - 1]);
        while (atLimit.WireSize < limit)
        {
            atLimit = atLimit with { Payload = new byte[atLimit.Payload.Length + 1] };
        }

        Assert.Equal(limit, atLimit.WireSize);
        var reply = await client.SendAsync(atLimit, ct).DefaultTimeout();
        var over = Assert.Throws<PeerMessageTooLargeException>(() => { _ = client.SendAsync(atLimit with { Payload = new byte[atLimit.Payload.Length + 1] }, ct); });

        Assert.Equal(atLimit.Payload.Length, reply.Payload.Length);
        Assert.Equal(limit + 1, over.Size);
        Assert.Equal(0, server.FailedCount);
    }

    [Fact]
    public async Task SendAsync_NullType_ThrowsArgumentException()
    {
        await using var client = PeerClient.Create("http://127.0.0.1:1", Messages.Quick());

        Assert.Throws<ArgumentException>(() => { _ = client.SendAsync(new PeerMessage(null!, "test", default), TestContext.Current.CancellationToken); });
    }

    public static TheoryData<PeerClientOptions> BadClientOptions() =>
    [
        new PeerClientOptions { BufferSize = 0 },
        new PeerClientOptions { MaxBatchCount = 0 },
        new PeerClientOptions { MaxBatchBytes = 5 * 1024 * 1024 },
        new PeerClientOptions { MaxMessageBytes = 2 * 1024 * 1024 },
        new PeerClientOptions { MaxResends = -1 },
        new PeerClientOptions { DeliveryTimeout = TimeSpan.Zero },
        new PeerClientOptions { HeartbeatInterval = TimeSpan.FromSeconds(10), ReadIdleTimeout = TimeSpan.FromSeconds(15) },
        new PeerClientOptions { ReconnectDelay = TimeSpan.FromSeconds(5), MaxReconnectDelay = TimeSpan.FromSeconds(1) },
        new PeerClientOptions { Mode = (PeerMode)42 },
    ];

    [Theory]
    [MemberData(nameof(BadClientOptions))]
    public void Create_OptionOutOfRange_ThrowsArgumentOutOfRangeException(PeerClientOptions options)
        => Assert.Throws<ArgumentOutOfRangeException>(() => PeerClient.Create("http://127.0.0.1:1", options));

    [Fact]
    public async Task StartAsync_BadServerOptions_ThrowClearly()
    {
        var ct = TestContext.Current.CancellationToken;
        await Assert.ThrowsAsync<ArgumentException>(() => PeerServer.StartAsync(new PeerServerOptions { Urls = ["127.0.0.1:80"] }, ct)).DefaultTimeout();
        await Assert.ThrowsAsync<ArgumentException>(() => PeerServer.StartAsync(new PeerServerOptions { Urls = ["https://127.0.0.1:0"] }, ct)).DefaultTimeout();
        await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() => PeerServer.StartAsync(new PeerServerOptions { MaxMessageBytes = 0 }, ct)).DefaultTimeout();
        await Assert.ThrowsAsync<ArgumentNullException>(() => PeerServer.StartAsync(new PeerServerOptions { Handler = null! }, ct)).DefaultTimeout();
    }

    [Fact]
    public async Task StartAsync_PortTaken_Throws()
    {
        var ct = TestContext.Current.CancellationToken;
        await using var first = await PeerServer.StartAsync(cancellationToken: ct).DefaultTimeout();

        await Assert.ThrowsAnyAsync<IOException>(() => PeerServer.StartAsync(new PeerServerOptions { Urls = [first.Address.ToString()] }, ct)).DefaultTimeout();
    }
}
