using Grpc.Net.Client;
using static Concurrency.Messaging.Grpc.Tests.RawStream;

namespace Concurrency.Messaging.Grpc.Tests;

/// <summary>
/// The server facing clients it does not control: a raw client built from the generated code plays the hostile side
/// (never acknowledges, floods without reading, sends huge batches, repeats sequence numbers, presents ids it was never
/// given, jumps its sequence numbers, opens more sessions than the server keeps), while a well-behaved
/// <see cref="PeerClient"/> on the same server keeps its replies. The server's memory for replies stays within its bounds,
/// and the abusive stream gets a clear status.
/// </summary>
public sealed class PeerAbuseTests
{
    [Fact]
    public async Task NeverAcknowledges_RememberedRepliesStayBoundedAndAnEvictedResendIsAnsweredForgotten()
    {
        var options = new PeerServerOptions { MaxRememberedPerSession = 100, MaxRememberedBytesPerSession = 64 * 1024 };
        await using var server = await PeerServer.StartAsync(options, TestContext.Current.CancellationToken).DefaultTimeout();
        using var raw = new RawPeer(server.Address);

        // Reset, not completed, at the end: a clean close would end the session.
        string session;
        using (var first = raw.Exchange())
        {
            session = await SessionOfAsync(first);
            await ReadAsync(first); // the greeting
            for (var batch = 0; batch < 20; batch++)
            {
                await WriteAsync(first, Requests(1 + (ulong)(batch * 100), 100, 1024));
                Assert.Equal(100, await CountRepliesAsync(first, 100));
                Assert.InRange(server.RememberedBytes, 1, 64 * 1024);
            }
        }

        var handled = server.HandledCount;
        using var second = await raw.ResumeAsync(session);
        var old = Requests(5, 1, 1024);
        old.Envelopes.Add(Requests(2000, 1, 1024).Envelopes[0]);
        await WriteAsync(second, old);
        var answers = await ReadAsync(second);

        Assert.True(answers.Envelopes[0].Forgotten);
        Assert.Contains("no longer remembers", answers.Envelopes[0].Error, StringComparison.Ordinal);
        Assert.False(answers.Envelopes[1].Forgotten);
        Assert.Equal(1024, answers.Envelopes[1].Payload.Length);
        Assert.Equal(handled, server.HandledCount); // neither was handled again
        Assert.Equal(2, server.DuplicateCount);
        await WellBehavedClient.AssertNewClientServedAsync(server);
    }

    [Fact]
    public async Task ServerWideBudget_ManySessionsNeverAcknowledging_StayWithinIt()
    {
        var options = new PeerServerOptions { MaxRememberedBytes = 100 * 1024 };
        await using var server = await PeerServer.StartAsync(options, TestContext.Current.CancellationToken).DefaultTimeout();
        using var raw = new RawPeer(server.Address);
        var calls = new List<AsyncDuplexStreamingCall<PeerBatch, PeerBatch>>();
        for (var i = 0; i < 5; i++)
        {
            var call = await raw.OpenAsync();
            calls.Add(call);
            await WriteAsync(call, Requests(1, 100, 1024));
            Assert.Equal(100, await CountRepliesAsync(call, 100));
            Assert.InRange(server.RememberedBytes, 1, 100 * 1024);
        }

        // Seen from the clients: the first session could not keep all of its 100 replies of 1 KiB within the server's
        // 100 KiB, and the last could keep none of them, though its own bound (16 MiB) had room: the budget is the server's.
        var handled = server.HandledCount;
        Assert.True(await ResendAsync(calls[0], 1), "the first session's oldest reply was remembered beyond the server's budget");
        Assert.True(await ResendAsync(calls[^1], 100), "the last session's newest reply was remembered beyond the server's budget");
        Assert.Equal(handled, server.HandledCount);
        await WellBehavedClient.AssertNewClientServedAsync(server);
    }

    [Fact]
    public async Task FloodsWithoutReadingReplies_IsHeldBackWhileAWellBehavedClientKeepsItsReplies()
    {
        var ct = TestContext.Current.CancellationToken;
        var options = new PeerServerOptions { MaxQueuedBatches = 2 };
        await using var server = await PeerServer.StartAsync(options, ct).DefaultTimeout();
        using var raw = new RawPeer(server.Address);
        using var flood = await raw.OpenAsync();

        // Writes 64 KiB batches and never reads: back-pressure must stop it long before 2,000 batches (128 MiB).
        var written = 0;
        using var stopFlood = CancellationTokenSource.CreateLinkedTokenSource(ct);
        var writer = Task.Run(
            async () =>
            {
                for (var batch = 0; batch < 2_000; batch++)
                {
                    await flood.RequestStream.WriteAsync(Requests(1 + (ulong)(batch * 64), 64, 1024), stopFlood.Token);
                    Interlocked.Increment(ref written);
                }
            },
            ct);
        await WaitForStallAsync(() => Volatile.Read(ref written), writer: writer);
        var stalled = Volatile.Read(ref written);
        await Task.Delay(TimeSpan.FromSeconds(1), ct); // a pause of the machine is not a stall: still held back a second later

        Assert.Equal(stalled, Volatile.Read(ref written));
        Assert.InRange(stalled, 1, 500);
        Assert.InRange(server.HandledCount, 1, Volatile.Read(ref written) * 64);
        await using (var client = await PeerClient.ConnectAsync(server.Address.ToString(), Messages.Quick(), ct).DefaultTimeout())
        {
            var replies = await Task.WhenAll(Enumerable.Range(0, 100).Select(i => client.SendAsync(Messages.Numbered(i), ct))).DefaultTimeout();
            Assert.Equal(Enumerable.Range(0, 100).Sum(i => (long)i), replies.Sum(Messages.Number));
        }

        await stopFlood.CancelAsync();
        await Assert.ThrowsAnyAsync<Exception>(() => writer).DefaultTimeout();
    }

    [Fact]
    public async Task HugeBatch_EndsTheStreamWithResourceExhaustedAndAReason()
    {
        await using var attack = await Attack.StartAsync(channel: new GrpcChannelOptions { MaxSendMessageSize = null });

        await WriteAsync(attack.Call, Requests(1, 5, 1024 * 1024));
        var error = await Assert.ThrowsAsync<RpcException>(() => ReadAsync(attack.Call)).DefaultTimeout();

        Assert.Equal(StatusCode.ResourceExhausted, error.StatusCode);
        Assert.NotEmpty(error.Status.Detail);
        await attack.AssertHandledAndBystanderServedAsync(0);
    }

    [Fact]
    public async Task TooManyRequestsInOneBatch_EndsTheStreamWithResourceExhaustedNamingTheLimit()
    {
        await using var attack = await Attack.StartAsync(new PeerServerOptions { MaxRequestBatchCount = 10 }, Messages.Steady() with { MaxBatchCount = 10 });

        await WriteAsync(attack.Call, Requests(1, 11, 8));
        var error = await Assert.ThrowsAsync<RpcException>(() => ReadAsync(attack.Call)).DefaultTimeout();

        Assert.Equal(StatusCode.ResourceExhausted, error.StatusCode);
        Assert.Contains("MaxRequestBatchCount", error.Status.Detail, StringComparison.Ordinal);
        await attack.AssertHandledAndBystanderServedAsync(0);
    }

    [Fact]
    public async Task ClientBatchesOverTheServersLimit_FailRefusedAtOnceNotResentUntilExhausted()
    {
        var ct = TestContext.Current.CancellationToken;
        await using var peers = await PeerPair.StartAsync(new PeerServerOptions { MaxRequestBatchCount = 10 }, Messages.Quick() with { MaxBatchCount = 64 });
        var (server, client) = peers;

        var sends = Enumerable.Range(0, 64).Select(i => client.SendAsync(Messages.Numbered(i), ct)).ToArray();
        var error = await Assert.ThrowsAsync<PeerDeliveryException>(() => Task.WhenAll(sends)).DefaultTimeout();

        Assert.Equal(PeerDeliveryFailure.Refused, error.Reason);
        Assert.Contains("MaxRequestBatchCount", error.Message, StringComparison.Ordinal);
        Assert.Equal(0, client.ResentCount);
        await WellBehavedClient.AssertNewClientServedAsync(server, Messages.Steady() with { MaxBatchCount = 10 });
    }

    [Fact]
    public async Task RepeatsSequenceNumbers_AnsweredFromMemoryNotHandledTwice()
    {
        await using var attack = await Attack.StartAsync();

        await WriteAsync(attack.Call, Requests(1, 3, 8));
        Assert.Equal(3, await CountRepliesAsync(attack.Call, 3));
        await WriteAsync(attack.Call, Requests(1, 3, 8));
        Assert.Equal(3, await CountRepliesAsync(attack.Call, 3));

        Assert.Equal(3, attack.Server.DuplicateCount);
        await attack.AssertHandledAndBystanderServedAsync(3);
    }

    [Fact]
    public async Task PresentsAnIdItWasNeverGiven_GetsASessionOfItsOwnAndTheRealClientIsUntouched()
    {
        var ct = TestContext.Current.CancellationToken;
        await using var peers = await PeerPair.StartAsync();
        var (server, client) = peers;
        Assert.Equal(1, Messages.Number(await client.SendAsync(Messages.Numbered(1), ct).DefaultTimeout()));
        using var raw = new RawPeer(server.Address);

        foreach (var guess in new[] { "0", "00000000000000000000000000000000", new string('f', 32) })
        {
            using var call = raw.Exchange(new Metadata { { SessionHeader, guess } });
            var issued = await SessionOfAsync(call);
            Assert.NotEqual(guess, issued);
            Assert.Equal(32, issued.Length);
            await ReadAsync(call);
            var poison = new PeerBatch { Acknowledged = ulong.MaxValue };
            poison.Envelopes.Add(new Envelope { Sequence = ulong.MaxValue, Type = "poison" });
            await WriteAsync(call, poison);
            Assert.Equal(1, await CountRepliesAsync(call, 1));
        }

        for (var i = 2; i <= 50; i++)
        {
            Assert.Equal(i, Messages.Number(await client.SendAsync(Messages.Numbered(i), ct).DefaultTimeout()));
        }

        Assert.Equal(0, client.TimedOutCount);
    }

    [Fact]
    public async Task SequenceFarBeyondTheSession_IsRefusedWithOutOfRange()
    {
        await using var attack = await Attack.StartAsync(new PeerServerOptions { MaxSequenceGap = 1000 });
        await WriteAsync(attack.Call, Requests(1, 2, 8));
        Assert.Equal(2, await CountRepliesAsync(attack.Call, 2));

        await WriteAsync(attack.Call, Requests(2 + 1001, 1, 8));

        await attack.AssertRefusedAsync(StatusCode.OutOfRange, "MaxSequenceGap", handled: 2);
    }

    [Fact]
    public async Task SequenceWalkedForwardInStepsOfTheGap_IsRefusedWithOutOfRangeAndAWellBehavedClientIsServed()
    {
        await using var attack = await Attack.StartAsync(new PeerServerOptions { MaxSequenceGap = 1000 });

        // Numbers passed over as a client's dropped sends leave them (a few between batches) are taken.
        await WriteAsync(attack.Call, Requests(1, 10, 8));
        Assert.Equal(10, await CountRepliesAsync(attack.Call, 10));
        await WriteAsync(attack.Call, Requests(20, 10, 8));
        Assert.Equal(10, await CountRepliesAsync(attack.Call, 10));

        // One step of the gap is taken; the next, which would walk the mark on by another, is refused.
        await WriteAsync(attack.Call, Requests(29 + 1000, 1, 8));
        Assert.Equal(1, await CountRepliesAsync(attack.Call, 1));
        await WriteAsync(attack.Call, Requests(29 + 2000, 1, 8));

        await attack.AssertRefusedAsync(StatusCode.OutOfRange, "MaxSequenceGap", handled: 21);
    }

    [Theory]
    [InlineData(new ulong[] { 1, 2, 2 })]
    [InlineData(new ulong[] { 1, 3, 2 })]
    public async Task SequencesNotIncreasingInOneBatch_AreRefusedWithInvalidArgumentUnhandledAndAWellBehavedClientIsServed(ulong[] sequences)
    {
        await using var attack = await Attack.StartAsync();
        var batch = new PeerBatch();
        foreach (var sequence in sequences)
        {
            batch.Envelopes.Add(new Envelope { Sequence = sequence, Type = "abuse", Source = "raw" });
        }

        await WriteAsync(attack.Call, batch);

        await attack.AssertRefusedAsync(StatusCode.InvalidArgument, "increasing", handled: 0);
    }

    [Fact]
    public async Task FirstSequenceFarBeyondWhatTheClientAcknowledged_IsRefusedWithOutOfRangeAndAWellBehavedClientIsServed()
    {
        await using var attack = await Attack.StartAsync(new PeerServerOptions { MaxSequenceGap = 1000 });

        await WriteAsync(attack.Call, Requests(1001, 1, 8));

        await attack.AssertRefusedAsync(StatusCode.OutOfRange, "MaxSequenceGap", handled: 0);
    }

    [Fact]
    public async Task FirstSequenceWithinTheGapOfWhatTheClientAcknowledged_IsHandledAsAfterAForgottenSession()
    {
        await using var attack = await Attack.StartAsync(new PeerServerOptions { MaxSequenceGap = 1000 });

        // A client whose session the server forgot keeps numbering where it was: its acknowledged mark says where that is.
        var resumed = Requests(5001, 2, 8);
        resumed.Acknowledged = 5000;
        await WriteAsync(attack.Call, resumed);

        Assert.Equal(2, await CountRepliesAsync(attack.Call, 2));
        await attack.AssertHandledAndBystanderServedAsync(2);
    }

    [Fact]
    public async Task MoreSessionsThanTheServerKeeps_IdleOnesForgottenFirstThenNewStreamsRefusedAndAConnectedClientServed()
    {
        await using var server = await PeerServer.StartAsync(new PeerServerOptions { MaxSessions = 4 }, TestContext.Current.CancellationToken).DefaultTimeout();
        await using var bystander = await WellBehavedClient.ConnectAsync(server);
        using var raw = new RawPeer(server.Address);

        // Churn: open, one message, reset. The sessions stay (a reset is not a clean close) up to the bound, no further,
        // and the connected client's session (a stream open) is never the one forgotten.
        for (var i = 0; i < 20; i++)
        {
            await TestTimeouts.WaitUntilAsync(() => server.Sessions.IdleCount == server.SessionCount - 1); // the last reset has reached the server
            using var churn = await raw.OpenAsync();
            await WriteAsync(churn, Requests(1, 1, 8));
            Assert.Equal(1, await CountRepliesAsync(churn, 1));
        }

        await TestTimeouts.WaitUntilAsync(() => server.Sessions.IdleCount == server.SessionCount - 1);
        Assert.Equal(4, server.SessionCount);
        await bystander.AssertServedAsync();
        for (var i = 0; i < 3; i++)
        {
            await raw.OpenAsync(); // open until the raw peer is disposed
        }

        using var refused = raw.Exchange();
        var error = await Assert.ThrowsAsync<RpcException>(() => ReadAsync(refused)).DefaultTimeout();
        Assert.Equal(StatusCode.ResourceExhausted, error.StatusCode);
        Assert.Contains("MaxSessions", error.Status.Detail, StringComparison.Ordinal);
        Assert.Equal(4, server.SessionCount);
        await bystander.AssertServedAsync();
    }

    [Fact]
    public async Task SlowHandler_BackPressureHoldsTheClientWithoutAReconnect()
    {
        var ct = TestContext.Current.CancellationToken;
        using var gate = new SemaphoreSlim(0);
        var options = new PeerServerOptions
        {
            MaxQueuedBatches = 1,
            PausedHeartbeatInterval = TimeSpan.FromMilliseconds(100),
            Handler = async (request, token) =>
            {
                await gate.WaitAsync(token).ConfigureAwait(false);
                gate.Release();
                return request;
            },
        };
        await using var server = await PeerServer.StartAsync(options, ct).DefaultTimeout();
        // The server's paused heartbeats come every 100 ms; the client gives up after 2.5 s of silence: a margin of 25 that a
        // loaded machine's stalls do not eat, while the pause below still lasts twice the client's read-idle timeout.
        var clientOptions = Messages.Steady() with { MaxBatchCount = 8, HeartbeatInterval = TimeSpan.FromMilliseconds(500), ReadIdleTimeout = TimeSpan.FromMilliseconds(2500) };
        await using var client = await PeerClient.ConnectAsync(server.Address.ToString(), clientOptions, ct).DefaultTimeout();

        var sends = Enumerable.Range(0, 400).Select(i => client.SendAsync(Messages.Numbered(i), ct)).ToArray();
        await Task.Delay(clientOptions.ReadIdleTimeout * 2, ct); // the handler holds everything for two read-idle timeouts: only heartbeats flow
        gate.Release();
        var replies = await Task.WhenAll(sends).DefaultTimeout();

        Assert.Equal(Enumerable.Range(0, 400).Sum(i => (long)i), replies.Sum(Messages.Number));
        Assert.Equal(0, client.HalfOpenCount);
        Assert.Equal(0, client.ReconnectCount);
    }

    // Writes request `sequence` again and returns whether the server answered it "forgotten" (not from memory).
    private static async Task<bool> ResendAsync(AsyncDuplexStreamingCall<PeerBatch, PeerBatch> call, ulong sequence)
    {
        await WriteAsync(call, Requests(sequence, 1, 1024));
        PeerBatch answer;
        do
        {
            answer = await ReadAsync(call);
        }
        while (answer.Envelopes.Count == 0);

        var reply = Assert.Single(answer.Envelopes);
        Assert.Equal(sequence, reply.Sequence);
        return reply.Forgotten;
    }

    /// <summary>
    /// The start of most attacks: a server that echoes and counts the attacker's requests, a well-behaved client connected
    /// and served before the attack, and the attacker's raw stream, greeted. Disposed in the reverse order.
    /// </summary>
    private sealed class Attack : IAsyncDisposable
    {
        private readonly AbuseCounter _abuse;
        private readonly RawPeer _raw;

        private Attack(AbuseCounter abuse, PeerServer server, WellBehavedClient bystander, RawPeer raw, AsyncDuplexStreamingCall<PeerBatch, PeerBatch> call)
            => (_abuse, Server, Bystander, _raw, Call) = (abuse, server, bystander, raw, call);

        public PeerServer Server { get; }

        public WellBehavedClient Bystander { get; }

        public AsyncDuplexStreamingCall<PeerBatch, PeerBatch> Call { get; }

        public static async Task<Attack> StartAsync(PeerServerOptions? options = null, PeerClientOptions? bystander = null, GrpcChannelOptions? channel = null)
        {
            var abuse = new AbuseCounter();
            var server = await PeerServer.StartAsync(abuse.Options(options), TestContext.Current.CancellationToken).DefaultTimeout();
            WellBehavedClient? client = null;
            RawPeer? raw = null;
            try
            {
                client = await WellBehavedClient.ConnectAsync(server, bystander);
                raw = new RawPeer(server.Address, channel);
                return new Attack(abuse, server, client, raw, await raw.OpenAsync());
            }
            catch
            {
                raw?.Dispose();
                if (client is not null)
                {
                    await client.DisposeAsync();
                }

                await server.DisposeAsync();
                throw;
            }
        }

        /// <summary>
        /// Reads the stream's end and checks it is the refusal <paramref name="status"/> naming <paramref name="reason"/>; then
        /// <see cref="AssertHandledAndBystanderServedAsync"/>: the attack cost only the <paramref name="handled"/> requests taken before it.
        /// </summary>
        public async Task AssertRefusedAsync(StatusCode status, string reason, int handled)
        {
            var error = await Assert.ThrowsAsync<RpcException>(() => ReadAsync(Call)).DefaultTimeout();
            Assert.Equal(status, error.StatusCode);
            Assert.Contains(reason, error.Status.Detail, StringComparison.Ordinal);
            await AssertHandledAndBystanderServedAsync(handled);
        }

        /// <summary>Checks that the handler saw <paramref name="handled"/> of the attacker's requests, and that the bystander is still served.</summary>
        public async Task AssertHandledAndBystanderServedAsync(int handled)
        {
            Assert.Equal(handled, _abuse.Handled);
            await Bystander.AssertServedAsync();
        }

        public async ValueTask DisposeAsync()
        {
            Call.Dispose();
            _raw.Dispose();
            await Bystander.DisposeAsync();
            await Server.DisposeAsync();
        }
    }

    // Echoes every request and counts the attacker's (type "abuse"): what a test reads instead of the server's own counters.
    private sealed class AbuseCounter
    {
        private int _handled; // the handler's threads increment, the test's reads

        public int Handled => Volatile.Read(ref _handled);

        public PeerServerOptions Options(PeerServerOptions? options = null) => (options ?? new PeerServerOptions()) with { Handler = Handle };

        private ValueTask<PeerMessage> Handle(PeerMessage request, CancellationToken cancellationToken)
        {
            if (request.Type == "abuse")
            {
                Interlocked.Increment(ref _handled);
            }

            return new ValueTask<PeerMessage>(request);
        }
    }
}
