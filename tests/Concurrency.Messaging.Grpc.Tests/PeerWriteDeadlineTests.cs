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
    private const int Payload = 64 * 1024;

    [Fact]
    public async Task Exchange_ClientNeverReadsItsReplies_StreamEndsAfterTheWriteTimeoutAndItsSlotServesANewClient()
    {
        var clock = new FakeTimeProvider();
        var options = new PeerServerOptions { MaxStreams = 2, MaxQueuedBatches = 2, TimeProvider = clock };
        await using var peers = await PeerPair.StartAsync(options, Messages.Steady());
        var (server, beside) = peers;
        using var raw = new RawPeer(server.Address);
        using var call = await raw.OpenAsync();
        using var flood = await Flood.StalledAsync(call);
        Assert.Equal(45, await SumAsync(beside, 10)); // served beside the blocked write

        clock.Advance(options.WriteTimeout + TimeSpan.FromSeconds(1));

        await WellBehavedClient.AssertNewClientServedAsync(server); // the slot (MaxStreams = 2) was given back, the flood still unread

        await EndedAsync(call);

        Assert.Equal(45, await SumAsync(beside, 10));
        await flood.StopAsync();
    }

    [Fact]
    public async Task Exchange_ClientNeverReadsOnTheLastConnection_ItsConnectionIsClosedAfterTheWriteTimeoutAndANewClientGetsIn()
    {
        var clock = new FakeTimeProvider();

        // Two connections: the client beside, and the flood's. The cut write's stream is reset, so its connection is left
        // with no stream and Kestrel closes it after the idle timeout (a real second: Kestrel's own clock).
        var options = new PeerServerOptions { MaxConnections = 2, MaxQueuedBatches = 2, ConnectionIdleTimeout = TimeSpan.FromSeconds(1), TimeProvider = clock };
        await using var peers = await PeerPair.StartAsync(options, Messages.Steady());
        var (server, beside) = peers;
        using var raw = new RawPeer(server.Address);
        using var call = await raw.OpenAsync();
        using var flood = await Flood.StalledAsync(call);

        clock.Advance(options.WriteTimeout + TimeSpan.FromSeconds(1));

        await WellBehavedClient.AssertNewClientServedAsync(server); // a connection (MaxConnections = 2) was given back, the flood still unread

        Assert.Equal(45, await SumAsync(beside, 10));
        await flood.StopAsync();
    }

    [Fact]
    public async Task Exchange_SupersededWhileBlockedInAWrite_EndsAtOnceAndTheNewStreamGetsTheRememberedReplies()
    {
        // The fake clock never moves: only the newer stream can end the blocked write.
        var options = new PeerServerOptions { MaxStreams = 3, MaxQueuedBatches = 2, TimeProvider = new FakeTimeProvider() };
        await using var peers = await PeerPair.StartAsync(options, Messages.Steady());
        var (server, beside) = peers;
        using var raw = new RawPeer(server.Address);
        using var old = raw.Exchange();
        var session = await SessionOfAsync(old);
        await ReadAsync(old);
        using var flood = await Flood.StalledAsync(old);
        var handled = server.HandledCount;

        using var resumed = await raw.ResumeAsync(session);

        await WriteAsync(resumed, Requests(1, 1, Payload));
        var again = await ReplyAsync(resumed);
        Assert.Equal(1UL, again.Sequence);
        Assert.Equal(Payload, again.Payload.Length);
        Assert.Equal(handled, server.HandledCount); // answered from memory, not handled twice
        await WellBehavedClient.AssertNewClientServedAsync(server); // the old stream's slot (MaxStreams = 3) was given back, its replies unread

        await EndedAsync(old);
        Assert.Equal(45, await SumAsync(beside, 10));
        await flood.StopAsync();
    }

    [Fact]
    public async Task Exchange_ClientReadsSlowlyButSteadily_IsNotCutWhileTheClockPassesTheWriteTimeoutManyTimes()
    {
        var ct = TestContext.Current.CancellationToken;
        var clock = new FakeTimeProvider();
        var options = new PeerServerOptions { TimeProvider = clock };
        await using var server = await PeerServer.StartAsync(options, ct).DefaultTimeout();
        using var raw = new RawPeer(server.Address);
        using var slow = await raw.OpenAsync();

        // Each 64 KiB echo is larger than the stream's first HTTP/2 window, so its write waits for the client to read; the
        // clock moves half the timeout per reply, ten timeouts in all, and no one write sees more than half of it.
        const int count = 20;
        for (var sequence = 1; sequence <= count; sequence++)
        {
            await WriteAsync(slow, Requests((ulong)sequence, 1, Payload));
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
        var clock = new FakeTimeProvider();
        // StreamIdleTimeout far off: the stream ends by sending nothing, not by giving way to the next client.
        var options = new PeerServerOptions { MaxStreams = 2, StreamIdleTimeout = TimeSpan.FromHours(1), TimeProvider = clock };
        await using var peers = await PeerPair.StartAsync(options, Messages.Steady());
        var (server, beside) = peers;
        using var raw = new RawPeer(server.Address);
        using var idle = await raw.OpenAsync();

        // Two thirds of the timeout, then a round trip of the client beside, which restarts its stream's wait; then past
        // the idle stream's timeout, and short of the other's.
        clock.Advance(options.ReadIdleTimeout * 2 / 3);
        Assert.Equal(45, await SumAsync(beside, 10));
        clock.Advance((options.ReadIdleTimeout / 3) + TimeSpan.FromSeconds(1));

        // Once more, as far: the server's reader starts its wait on its own thread as the client reads the greeting, so
        // under load it can start after the first advance. The client beside keeps its stream by a round trip first.
        Assert.Equal(45, await SumAsync(beside, 10));
        clock.Advance(options.ReadIdleTimeout * 2 / 3);

        await WellBehavedClient.AssertNewClientServedAsync(server); // the idle stream's slot (MaxStreams = 2) was given back

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
        using var raw = new RawPeer(server.Address);
        using var call = await raw.OpenAsync();

        // Three requests sent at once, answered one by one by a slow handler: the client sends nothing more for twice the
        // idle timeout, while a reply comes every two thirds of it.
        for (ulong sequence = 1; sequence <= 3; sequence++)
        {
            await WriteAsync(call, Requests(sequence, 1, Payload));
        }

        for (ulong sequence = 1; sequence <= 3; sequence++)
        {
            gate.Release();
            Assert.Equal(sequence, (await ReplyAsync(call)).Sequence);
            clock.Advance(options.ReadIdleTimeout * 2 / 3);
        }

        gate.Release();
        await WriteAsync(call, Requests(4, 1, Payload));
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

    // A raw stream that writes one-request batches of 64 KiB echoes and reads none of the replies, started and waited for
    // until the server holds it back (its writes stall). StopAsync ends it and checks it was still held back then.
    private sealed class Flood : IDisposable
    {
        private readonly CancellationTokenSource _stop = CancellationTokenSource.CreateLinkedTokenSource(TestContext.Current.CancellationToken);
        private readonly Task _writer;
        private int _written; // the writer increments, the test's stall wait reads

        private Flood(AsyncDuplexStreamingCall<PeerBatch, PeerBatch> call)
            => _writer = Task.Run(
                async () =>
                {
                    for (var sequence = 1; sequence <= 1_000; sequence++)
                    {
                        await call.RequestStream.WriteAsync(Requests((ulong)sequence, 1, Payload), _stop.Token).ConfigureAwait(false);
                        Interlocked.Increment(ref _written);
                    }
                },
                _stop.Token);

        public static async Task<Flood> StalledAsync(AsyncDuplexStreamingCall<PeerBatch, PeerBatch> call)
        {
            var flood = new Flood(call);
            await WaitForStallAsync(() => Volatile.Read(ref flood._written), writer: flood._writer);
            return flood;
        }

        public async Task StopAsync()
        {
            await _stop.CancelAsync();
            await Assert.ThrowsAnyAsync<Exception>(() => _writer).DefaultTimeout();
        }

        public void Dispose()
        {
            _stop.Cancel();
            _stop.Dispose();
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
