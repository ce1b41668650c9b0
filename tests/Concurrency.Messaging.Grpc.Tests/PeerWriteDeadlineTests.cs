using Concurrency.Messaging.Grpc.Protocol;
using Google.Protobuf;
using Grpc.Core;
using Grpc.Net.Client;
using Microsoft.Extensions.Time.Testing;
using Xunit;
using static Concurrency.Messaging.Grpc.Tests.RawStream;

namespace Concurrency.Messaging.Grpc.Tests;

/// <summary>
/// Streams a client cannot hold forever: a raw client that floods 64 KiB echoes and never reads them blocks the server's
/// write on HTTP/2 flow control; the write ends after <see cref="PeerServerOptions.WriteTimeout"/> (a fake clock), or at
/// once when a newer stream of the same session arrives; a stream that sends nothing ends after
/// <see cref="PeerServerOptions.ReadIdleTimeout"/>. Each time the stream's slot is given back, while a well-behaved
/// <see cref="PeerClient"/> beside it is served, and a client that reads slowly but steadily is never cut.
/// </summary>
public sealed class PeerWriteDeadlineTests
{
    private const string SessionHeader = "concurrency-peer-session";
    private const int Payload = 64 * 1024;

    [Fact]
    public async Task Exchange_ClientNeverReadsItsReplies_StreamEndsAfterTheWriteTimeoutAndItsSlotServesANewClient()
    {
        var ct = TestContext.Current.CancellationToken;
        var clock = new FakeTimeProvider();
        var options = new PeerServerOptions { MaxStreams = 2, MaxQueuedBatches = 2, TimeProvider = clock };
        await using var server = await PeerServer.StartAsync(options, ct).DefaultTimeout();
        await using var beside = await PeerClient.ConnectAsync(server.Address.ToString(), Messages.Steady(), ct).DefaultTimeout();
        using var channel = GrpcChannel.ForAddress(server.Address);
        using var flood = new Peer.PeerClient(channel).Exchange(cancellationToken: ct);
        await ReadAsync(flood);
        using var stopFlood = CancellationTokenSource.CreateLinkedTokenSource(ct);
        var written = 0;
        var writer = FloodAsync(flood, 1_000, () => Interlocked.Increment(ref written), stopFlood.Token);
        await WaitForStallAsync(() => Volatile.Read(ref written), writer: writer);
        Assert.Equal(45, await SumAsync(beside, 10)); // served beside the blocked write

        clock.Advance(options.WriteTimeout + TimeSpan.FromSeconds(1));

        await using (var next = await PeerClient.ConnectAsync(server.Address.ToString(), Messages.Steady(), ct).DefaultTimeout())
        {
            Assert.Equal(45, await SumAsync(next, 10)); // the slot (MaxStreams = 2) was given back, the flood still unread
        }

        await EndedAsync(flood);

        Assert.Equal(45, await SumAsync(beside, 10));
        await stopFlood.CancelAsync();
        await Assert.ThrowsAnyAsync<Exception>(() => writer).DefaultTimeout();
    }

    [Fact]
    public async Task Exchange_ClientNeverReadsOnTheLastConnection_ItsConnectionIsClosedAfterTheWriteTimeoutAndANewClientGetsIn()
    {
        var ct = TestContext.Current.CancellationToken;
        var clock = new FakeTimeProvider();

        // Two connections: the client beside, and the flood's. The cut write's stream is reset, so its connection is left
        // with no stream and Kestrel closes it after the idle timeout (a real second: Kestrel's own clock).
        var options = new PeerServerOptions { MaxConnections = 2, MaxQueuedBatches = 2, ConnectionIdleTimeout = TimeSpan.FromSeconds(1), TimeProvider = clock };
        await using var server = await PeerServer.StartAsync(options, ct).DefaultTimeout();
        await using var beside = await PeerClient.ConnectAsync(server.Address.ToString(), Messages.Steady(), ct).DefaultTimeout();
        using var channel = GrpcChannel.ForAddress(server.Address);
        using var flood = new Peer.PeerClient(channel).Exchange(cancellationToken: ct);
        await ReadAsync(flood);
        using var stopFlood = CancellationTokenSource.CreateLinkedTokenSource(ct);
        var written = 0;
        var writer = FloodAsync(flood, 1_000, () => Interlocked.Increment(ref written), stopFlood.Token);
        await WaitForStallAsync(() => Volatile.Read(ref written), writer: writer);

        clock.Advance(options.WriteTimeout + TimeSpan.FromSeconds(1));

        await using (var next = await PeerClient.ConnectAsync(server.Address.ToString(), Messages.Steady(), ct).DefaultTimeout())
        {
            Assert.Equal(45, await SumAsync(next, 10)); // a connection (MaxConnections = 2) was given back, the flood still unread
        }

        Assert.Equal(45, await SumAsync(beside, 10));
        await stopFlood.CancelAsync();
        await Assert.ThrowsAnyAsync<Exception>(() => writer).DefaultTimeout();
    }

    [Fact]
    public async Task Exchange_SupersededWhileBlockedInAWrite_EndsAtOnceAndTheNewStreamGetsTheRememberedReplies()
    {
        var ct = TestContext.Current.CancellationToken;

        // The fake clock never moves: only the newer stream can end the blocked write.
        var options = new PeerServerOptions { MaxStreams = 3, MaxQueuedBatches = 2, TimeProvider = new FakeTimeProvider() };
        await using var server = await PeerServer.StartAsync(options, ct).DefaultTimeout();
        await using var beside = await PeerClient.ConnectAsync(server.Address.ToString(), Messages.Steady(), ct).DefaultTimeout();
        using var channel = GrpcChannel.ForAddress(server.Address);
        var raw = new Peer.PeerClient(channel);
        using var old = raw.Exchange(cancellationToken: ct);
        var session = (await old.ResponseHeadersAsync.DefaultTimeout()).GetValue(SessionHeader)!;
        await ReadAsync(old);
        using var stopFlood = CancellationTokenSource.CreateLinkedTokenSource(ct);
        var written = 0;
        var writer = FloodAsync(old, 1_000, () => Interlocked.Increment(ref written), stopFlood.Token);
        await WaitForStallAsync(() => Volatile.Read(ref written), writer: writer);
        var handled = server.HandledCount;

        using var resumed = raw.Exchange(new Metadata { { SessionHeader, session } }, cancellationToken: ct);
        Assert.Equal(session, (await resumed.ResponseHeadersAsync.DefaultTimeout()).GetValue(SessionHeader));
        await ReadAsync(resumed);

        await resumed.RequestStream.WriteAsync(Requests(1, 1), ct).DefaultTimeout();
        var again = await ReplyAsync(resumed);
        Assert.Equal(1UL, again.Sequence);
        Assert.Equal(Payload, again.Payload.Length);
        Assert.Equal(handled, server.HandledCount); // answered from memory, not handled twice
        await using (var next = await PeerClient.ConnectAsync(server.Address.ToString(), Messages.Steady(), ct).DefaultTimeout())
        {
            Assert.Equal(45, await SumAsync(next, 10)); // the old stream's slot (MaxStreams = 3) was given back, its replies unread
        }

        await EndedAsync(old);
        Assert.Equal(45, await SumAsync(beside, 10));
        await stopFlood.CancelAsync();
        await Assert.ThrowsAnyAsync<Exception>(() => writer).DefaultTimeout();
    }

    [Fact]
    public async Task Exchange_ClientReadsSlowlyButSteadily_IsNotCutWhileTheClockPassesTheWriteTimeoutManyTimes()
    {
        var ct = TestContext.Current.CancellationToken;
        var clock = new FakeTimeProvider();
        var options = new PeerServerOptions { TimeProvider = clock };
        await using var server = await PeerServer.StartAsync(options, ct).DefaultTimeout();
        using var channel = GrpcChannel.ForAddress(server.Address);
        using var slow = new Peer.PeerClient(channel).Exchange(cancellationToken: ct);
        await ReadAsync(slow);

        // Each 64 KiB echo is larger than the stream's first HTTP/2 window, so its write waits for the client to read; the
        // clock moves half the timeout per reply, ten timeouts in all, and no one write sees more than half of it.
        const int count = 20;
        for (var sequence = 1; sequence <= count; sequence++)
        {
            await slow.RequestStream.WriteAsync(Requests((ulong)sequence, 1), ct).DefaultTimeout();
            Assert.Equal((ulong)sequence, (await ReplyAsync(slow)).Sequence);
            clock.Advance(options.WriteTimeout / 2);
        }

        Assert.Equal(count, server.HandledCount);
        await slow.RequestStream.CompleteAsync().DefaultTimeout();
        while (await slow.ResponseStream.MoveNext(ct).DefaultTimeout()) // ends as the client closed it, not reset by the server
        {
            Assert.Empty(slow.ResponseStream.Current.Envelopes);
        }
    }

    [Fact]
    public async Task Exchange_StreamSendsNothing_EndsAfterTheIdleTimeoutAndItsSlotServesANewClient()
    {
        var ct = TestContext.Current.CancellationToken;
        var clock = new FakeTimeProvider();
        // StreamIdleTimeout far off: the stream ends by sending nothing, not by giving way to the next client.
        var options = new PeerServerOptions { MaxStreams = 2, StreamIdleTimeout = TimeSpan.FromHours(1), TimeProvider = clock };
        await using var server = await PeerServer.StartAsync(options, ct).DefaultTimeout();
        await using var beside = await PeerClient.ConnectAsync(server.Address.ToString(), Messages.Steady(), ct).DefaultTimeout();
        using var channel = GrpcChannel.ForAddress(server.Address);
        using var idle = new Peer.PeerClient(channel).Exchange(cancellationToken: ct);
        await ReadAsync(idle);

        // Two thirds of the timeout, then a round trip of the client beside, which restarts its stream's wait; then past
        // the idle stream's timeout, and short of the other's.
        clock.Advance(options.ReadIdleTimeout * 2 / 3);
        Assert.Equal(45, await SumAsync(beside, 10));
        clock.Advance((options.ReadIdleTimeout / 3) + TimeSpan.FromSeconds(1));

        await using (var next = await PeerClient.ConnectAsync(server.Address.ToString(), Messages.Steady(), ct).DefaultTimeout())
        {
            Assert.Equal(45, await SumAsync(next, 10)); // the idle stream's slot (MaxStreams = 2) was given back
        }

        var ended = await Assert.ThrowsAsync<RpcException>(async () => await EndedQuietlyAsync(idle)).DefaultTimeout();
        Assert.Equal(StatusCode.Unavailable, ended.StatusCode);
        Assert.Contains("ReadIdleTimeout", ended.Status.Detail, StringComparison.Ordinal);
        Assert.Equal(45, await SumAsync(beside, 10));
        Assert.Equal(0, beside.ReconnectCount);
    }

    [Fact]
    public async Task Exchange_ClientOnlyTakingRepliesPastTheIdleTimeout_IsNotCut()
    {
        var ct = TestContext.Current.CancellationToken;
        var clock = new FakeTimeProvider();
        using var gate = new SemaphoreSlim(0);
        var options = new PeerServerOptions
        {
            TimeProvider = clock,
            Handler = async (request, token) =>
            {
                await gate.WaitAsync(token).ConfigureAwait(false);
                return request;
            },
        };
        await using var server = await PeerServer.StartAsync(options, ct).DefaultTimeout();
        using var channel = GrpcChannel.ForAddress(server.Address);
        using var call = new Peer.PeerClient(channel).Exchange(cancellationToken: ct);
        await ReadAsync(call);

        // Three requests sent at once, answered one by one by a slow handler: the client sends nothing more for twice the
        // idle timeout, while a reply comes every two thirds of it.
        for (ulong sequence = 1; sequence <= 3; sequence++)
        {
            await call.RequestStream.WriteAsync(Requests(sequence, 1), ct).DefaultTimeout();
        }

        for (ulong sequence = 1; sequence <= 3; sequence++)
        {
            gate.Release();
            Assert.Equal(sequence, (await ReplyAsync(call)).Sequence);
            clock.Advance(options.ReadIdleTimeout * 2 / 3);
        }

        gate.Release();
        await call.RequestStream.WriteAsync(Requests(4, 1), ct).DefaultTimeout();
        Assert.Equal(4UL, (await ReplyAsync(call)).Sequence);
        Assert.Equal(4, server.HandledCount);
    }

    [Fact]
    public async Task WriteAsync_EachWriteWithinTheTimeout_NeverCutThenOneWithoutProgressIsCutAndResetsTheStream()
    {
        var clock = new FakeTimeProvider();
        var options = new PeerServerOptions { TimeProvider = clock };
        var response = new HeldWriter();
        var resets = 0;
        using var stop = new CancellationTokenSource();
        using var writer = new PeerResponseWriter(response, () => resets++, options, stop.Token, CancellationToken.None);

        // Ten writes, each taken by the client just short of the timeout: ten timeouts in all, none of them one write's.
        for (var i = 0; i < 10; i++)
        {
            var write = writer.WriteAsync(new PeerBatch()).AsTask();
            clock.Advance(options.WriteTimeout - TimeSpan.FromSeconds(1));
            response.Take();
            await write.DefaultTimeout();
        }

        var held = writer.WriteAsync(new PeerBatch()).AsTask();
        clock.Advance(options.WriteTimeout);

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => held).DefaultTimeout();
        Assert.Equal(1, resets);
        Assert.Equal(11, response.Writes);
    }

    [Fact]
    public async Task WriteAsync_HostStopping_LetsTheRepliesAlreadyMadeGoOutButASupersededStreamsDoNot()
    {
        var options = new PeerServerOptions { TimeProvider = new FakeTimeProvider() };
        var response = new HeldWriter();
        using var host = new CancellationTokenSource();
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(host.Token);
        using (var writer = new PeerResponseWriter(response, () => { }, options, stop.Token, host.Token))
        {
            var write = writer.WriteAsync(new PeerBatch()).AsTask();
            await host.CancelAsync();
            response.Take();
            await write.DefaultTimeout();
        }

        using var superseded = new CancellationTokenSource();
        using (var writer = new PeerResponseWriter(response, () => { }, options, superseded.Token, CancellationToken.None))
        {
            var write = writer.WriteAsync(new PeerBatch()).AsTask();
            await superseded.CancelAsync();
            await Assert.ThrowsAnyAsync<OperationCanceledException>(() => write).DefaultTimeout();
        }
    }

    [Theory]
    [InlineData(nameof(PeerServerOptions.WriteTimeout))]
    [InlineData(nameof(PeerServerOptions.ReadIdleTimeout))]
    [InlineData(nameof(PeerServerOptions.ConnectionIdleTimeout))]
    public async Task StartAsync_DeadlineNotPositive_IsRefusedNamingTheOption(string name)
    {
        var options = name switch
        {
            nameof(PeerServerOptions.WriteTimeout) => new PeerServerOptions { WriteTimeout = TimeSpan.Zero },
            nameof(PeerServerOptions.ReadIdleTimeout) => new PeerServerOptions { ReadIdleTimeout = TimeSpan.FromSeconds(-1) },
            _ => new PeerServerOptions { ConnectionIdleTimeout = TimeSpan.Zero },
        };

        var error = await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() => PeerServer.StartAsync(options, TestContext.Current.CancellationToken)).DefaultTimeout();

        Assert.Equal(name, error.ParamName);
    }

    // Writes count one-request batches of 64 KiB echoes, counting each write, and reads nothing.
    private static Task FloodAsync(AsyncDuplexStreamingCall<PeerBatch, PeerBatch> call, int count, Func<int> wrote, CancellationToken stop)
        => Task.Run(
            async () =>
            {
                for (var sequence = 1; sequence <= count; sequence++)
                {
                    await call.RequestStream.WriteAsync(Requests((ulong)sequence, 1), stop).ConfigureAwait(false);
                    wrote();
                }
            },
            stop);

    private static PeerBatch Requests(ulong first, int count)
    {
        var batch = new PeerBatch();
        var payload = ByteString.CopyFrom(new byte[Payload]);
        for (var i = 0; i < count; i++)
        {
            batch.Envelopes.Add(new Envelope { Sequence = first + (ulong)i, Type = "abuse", Source = "raw", Payload = payload });
        }

        return batch;
    }

    private static async Task<long> SumAsync(PeerClient client, int count)
    {
        var replies = await Task.WhenAll(Enumerable.Range(0, count).Select(i => client.SendAsync(Messages.Numbered(i), TestContext.Current.CancellationToken))).DefaultTimeout();
        return replies.Sum(Messages.Number);
    }

    // The next reply, heartbeats skipped.
    private static async Task<Envelope> ReplyAsync(AsyncDuplexStreamingCall<PeerBatch, PeerBatch> call)
    {
        while (true)
        {
            var batch = await ReadAsync(call);
            if (batch.Envelopes.Count > 0)
            {
                return batch.Envelopes[0];
            }
        }
    }

    // Reads what the server wrote before it let go of the stream, until the stream ends (reset or closed).
    // Reads to the end of the stream; a status other than OK throws.
    private static async Task EndedQuietlyAsync(AsyncDuplexStreamingCall<PeerBatch, PeerBatch> call)
    {
        while (await call.ResponseStream.MoveNext(TestContext.Current.CancellationToken))
        {
        }
    }

    private static async Task EndedAsync(AsyncDuplexStreamingCall<PeerBatch, PeerBatch> call)
    {
        var ct = TestContext.Current.CancellationToken;
        try
        {
            while (await call.ResponseStream.MoveNext(ct).DefaultTimeout())
            {
            }
        }
        catch (RpcException)
        {
            // Reset by the server: the ending this test waits for.
        }
    }

    // A response stream whose every write waits until the test lets the client take it, or the write's token fires.
    private sealed class HeldWriter : IServerStreamWriter<PeerBatch>
    {
        private TaskCompletionSource? _held;

        public WriteOptions? WriteOptions { get; set; }

        public int Writes { get; private set; }

        public Task WriteAsync(PeerBatch message) => WriteAsync(message, CancellationToken.None);

        public Task WriteAsync(PeerBatch message, CancellationToken cancellationToken)
        {
            Writes++;
            _held = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            return _held.Task.WaitAsync(cancellationToken);
        }

        public void Take() => _held!.TrySetResult();
    }
}
