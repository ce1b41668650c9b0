using static Concurrency.Messaging.Grpc.Tests.RawStream;

namespace Concurrency.Messaging.Grpc.Tests;

/// <summary>
/// What the server holds for one stream and for its remembered replies. A handler answering every request of a batch with
/// a large reply, for a client that does not read, is held back inside the batch (the stream holds a few reply batches,
/// not the whole answer), and the session's next stream takes over from a stream waiting so. Remembered replies are
/// counted as allocated, and their arrays given back when the client acknowledges them. A well-behaved
/// <see cref="PeerClient"/> beside the hostile one is served throughout.
/// </summary>
public sealed class PeerMemoryTests
{
    private const int ReplyBytes = 60 * 1024;
    private const int Requests = 512;

    [Fact]
    public async Task AnswerAsync_LargeRepliesToABatchTheClientDoesNotRead_HandlerIsHeldBackInsideTheBatch()
    {
        var ct = TestContext.Current.CancellationToken;
        await using var large = await LargeReplyServer.StartAsync();
        var (server, raw, handled) = (large.Server, large.Raw, large.Handled);
        using var call = await raw.OpenAsync();

        // One batch of 512 small requests, each answered with 60 KiB (30 MiB in all), and no reads.
        await WriteAsync(call, Batch(1, Requests));
        await WaitForStallAsync(() => handled.Value, 4);

        // The stream holds MaxQueuedBatches + 2 reply batches (4 here: queued, being written, waiting for room) and the reply
        // made after them, and HTTP/2 takes one more into its windows and buffers (64 KiB each way): 6 in practice, where
        // all 512 were made before.
        Assert.InRange(handled.Value, 4, 16);
        await AssertServedAsync(server, ct);

        // Read now: every reply comes, in order, and each request was handled once.
        var sequences = await ReadRepliesAsync(call, Requests);
        Assert.Equal(Enumerable.Range(1, Requests).Select(i => (ulong)i), sequences);
        Assert.Equal(Requests, handled.Value);
    }

    [Fact]
    public async Task AnswerAsync_StreamWaitingForRoomInsideABatch_IsSupersededByTheSessionsNextStreamWithNothingHandledTwice()
    {
        var ct = TestContext.Current.CancellationToken;
        await using var large = await LargeReplyServer.StartAsync();
        var (server, raw, handled) = (large.Server, large.Raw, large.Handled);
        using var first = raw.Exchange();
        var session = await SessionOfAsync(first);
        await ReadAsync(first);
        await WriteAsync(first, Batch(1, Requests));
        await WaitForStallAsync(() => handled.Value, 4);
        var before = handled.Value;

        // The client gives up on the first stream without closing it, and resends everything on its next one: the first
        // stream, waiting for room while it holds the session, must let the second have it.
        using var second = await raw.ResumeAsync(session);
        await WriteAsync(second, Batch(1, Requests));
        var replies = await ReadEnvelopesAsync(second, Requests);

        Assert.Equal(Enumerable.Range(1, Requests).Select(i => (ulong)i), replies.Select(reply => reply.Sequence));
        Assert.All(replies, reply => Assert.Equal((false, string.Empty, ReplyBytes), (reply.Forgotten, reply.Error, reply.Payload.Length)));
        Assert.Equal(Requests, handled.Value); // those the first stream handled were answered from memory
        Assert.InRange(server.DuplicateCount, before, Requests);
        await AssertServedAsync(server, ct);
    }

    [Fact]
    public async Task Acknowledge_AfterManyRememberedReplies_GivesTheArraysBackAndTheBudgetCountsWhatIsAllocated()
    {
        using var offline = new OfflineStream(new DiscardingWriter());
        var (state, session, stream) = (offline.State, offline.Session, offline.Stream);

        // A client that never acknowledges: 4,000 replies of 1 KiB remembered.
        for (ulong first = 1; first <= 4_000; first += 100)
        {
            await stream.AcceptAsync(Batch(first, 100, payloadBytes: 1024)).AsTask().DefaultTimeout();
        }

        var (entries, payloads) = session.RememberedCapacity;
        Assert.Equal(4_000, session.RememberedCount);
        Assert.True(state.RememberedBytes >= (entries * (long)RememberedReplies.EntryBytes) + payloads, "the budget counts the arrays at their capacity");
        Assert.Equal(session.RememberedBytes, state.RememberedBytes);

        // It acknowledges all but the newest, one more request a batch: within some tens of batches the arrays are down
        // to a few KiB, and the budget with them.
        for (ulong next = 4_001; next <= 4_200; next++)
        {
            var batch = Batch(next, 1, payloadBytes: 1024);
            batch.Acknowledged = next - 2;
            await stream.AcceptAsync(batch).AsTask().DefaultTimeout();
        }

        Assert.Equal(2, session.RememberedCount);
        Assert.InRange(session.RememberedCapacity.Entries, 1, 128);
        Assert.InRange(session.RememberedCapacity.PayloadBytes, 1, 16 * 1024);
        Assert.InRange(state.RememberedBytes, 1, 32 * 1024);
        Assert.Equal(1024, session.Recall(4_199)!.Payload.Length); // still answered from memory

        // And the last: the arrays stay for the next batch; an acknowledgement with nothing remembered since (a quiet
        // client's heartbeat) lets them go, and nothing is held.
        await stream.AcceptAsync(new PeerBatch { Acknowledged = 4_200 }).AsTask().DefaultTimeout();
        Assert.Equal(0, session.RememberedCount);
        await stream.AcceptAsync(new PeerBatch { Acknowledged = 4_200 }).AsTask().DefaultTimeout();
        Assert.Equal((0, 0), session.RememberedCapacity);
        Assert.Equal(0, state.RememberedBytes);
        await stream.CloseAsync().DefaultTimeout();
    }

    [Fact]
    public async Task Remember_ManySessionsNeverAcknowledging_HoldNoMoreThanTheBudgetAsAllocated()
    {
        var ct = TestContext.Current.CancellationToken;
        var options = new PeerServerOptions { MaxRememberedBytes = 1024 * 1024 };
        await using var server = await PeerServer.StartAsync(options, ct).DefaultTimeout();
        using var raw = new RawPeer(server.Address);
        var calls = new List<AsyncDuplexStreamingCall<PeerBatch, PeerBatch>>();
        // Eight sessions of 300 replies of 1 KiB each, never acknowledged: 2.4 MiB of replies for a 1 MiB budget.
        for (var i = 0; i < 8; i++)
        {
            var call = await raw.OpenAsync();
            calls.Add(call);
            for (ulong first = 1; first <= 300; first += 100)
            {
                await WriteAsync(call, Batch(first, 100, payloadBytes: 1024));
                Assert.Equal(100, (await ReadEnvelopesAsync(call, 100)).Count);
                Assert.InRange(server.RememberedBytes, 1, options.MaxRememberedBytes);
            }
        }

        // The first session's newest reply is still answered from memory: resent, it is not handled again.
        var handled = server.HandledCount;
        await calls[0].RequestStream.WriteAsync(Batch(300, 1, payloadBytes: 1024), ct).DefaultTimeout();
        var resent = (await ReadEnvelopesAsync(calls[0], 1))[0];
        Assert.Equal((300UL, false, 1024), (resent.Sequence, resent.Forgotten, resent.Payload.Length));
        Assert.Equal(handled, server.HandledCount);
        await AssertServedAsync(server, ct);
    }

    private static async Task AssertServedAsync(PeerServer server, CancellationToken ct)
    {
        await using var client = await PeerClient.ConnectAsync(server.Address.ToString(), Messages.Steady(), ct).DefaultTimeout();
        var replies = await Task.WhenAll(Enumerable.Range(0, 100).Select(i => client.SendAsync(Messages.Numbered(i), ct))).DefaultTimeout();
        Assert.Equal(Enumerable.Range(0, 100).Sum(i => (long)i), replies.Sum(Messages.Number));
    }

    private static PeerBatch Batch(ulong first, int count, int payloadBytes = 16) => RawStream.Requests(first, count, payloadBytes, "large");

    // Reads batches until count replies came (heartbeats skipped).
    private static async Task<List<Envelope>> ReadEnvelopesAsync(AsyncDuplexStreamingCall<PeerBatch, PeerBatch> call, int count)
    {
        var replies = new List<Envelope>(count);
        while (replies.Count < count)
        {
            replies.AddRange((await ReadAsync(call)).Envelopes);
        }

        return replies;
    }

    private static async Task<List<ulong>> ReadRepliesAsync(AsyncDuplexStreamingCall<PeerBatch, PeerBatch> call, int count)
        => [.. (await ReadEnvelopesAsync(call, count)).Select(reply => reply.Sequence)];

    /// <summary>
    /// A server whose handler answers each request of type "large" with 60 KiB and counts it, at most one reply a batch (64
    /// KiB a batch), so that the stream's reply batches are counted in replies; with a raw peer of the test's own.
    /// </summary>
    private sealed class LargeReplyServer : IAsyncDisposable
    {
        private LargeReplyServer(PeerServer server, Counter handled)
            => (Server, Raw, Handled) = (server, new RawPeer(server.Address), handled);

        public PeerServer Server { get; }

        public RawPeer Raw { get; }

        public Counter Handled { get; }

        public static async Task<LargeReplyServer> StartAsync()
        {
            var handled = new Counter();
            var options = new PeerServerOptions
            {
                MaxQueuedBatches = 2,
                MaxMessageBytes = 64 * 1024,
                MaxBatchBytes = 64 * 1024,
                Handler = (request, _) =>
                {
                    if (request.Type != "large")
                    {
                        return PeerHandlers.Echo(request, CancellationToken.None);
                    }

                    handled.Increment();
                    return ValueTask.FromResult(new PeerMessage("large", "server", new byte[ReplyBytes]));
                },
            };
            return new LargeReplyServer(await PeerServer.StartAsync(options, TestContext.Current.CancellationToken).DefaultTimeout(), handled);
        }

        public async ValueTask DisposeAsync()
        {
            Raw.Dispose();
            await Server.DisposeAsync();
        }
    }

    /// <summary>A count the handler adds to on the server's threads and the test reads.</summary>
    private sealed class Counter
    {
        private int _value;

        public int Value => Volatile.Read(ref _value);

        public void Increment() => Interlocked.Increment(ref _value);
    }

    // A response stream whose client takes every write at once.
    private sealed class DiscardingWriter : IServerStreamWriter<PeerBatch>
    {
        public WriteOptions? WriteOptions { get; set; }

        public Task WriteAsync(PeerBatch message) => Task.CompletedTask;

        public Task WriteAsync(PeerBatch message, CancellationToken cancellationToken) => Task.CompletedTask;
    }
}
