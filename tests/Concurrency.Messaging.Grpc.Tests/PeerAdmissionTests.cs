using System.Collections.Concurrent;
using Google.Protobuf;
using Microsoft.Extensions.Logging.Abstractions;
using static Concurrency.Messaging.Grpc.Tests.RawStream;

namespace Concurrency.Messaging.Grpc.Tests;

/// <summary>
/// Who may hold the server's streams and sessions. A raw client built from the generated code plays the hostile side:
/// it holds idle streams up to the server's limit, churns sessions, takes more than its identity's share, or presents
/// another identity's session id; a well-behaved <see cref="PeerClient"/> beside it must still get in and be answered,
/// each of its requests handled exactly once (the handler counts its invocations per number).
/// </summary>
public sealed class PeerAdmissionTests
{
    [Fact]
    public async Task IdleStreamsAtMaxStreams_KeepANewClientOutNoLongerThanStreamIdleTimeout()
    {
        var ct = TestContext.Current.CancellationToken;
        var time = new FakeTimeProvider();
        var handled = new ConcurrentDictionary<long, int>();
        // ReadIdleTimeout well past the clock's moves: the holder's streams end here by giving way, not by sending nothing.
        var options = new PeerServerOptions { MaxStreams = 8, StreamIdleTimeout = TimeSpan.FromSeconds(30), ReadIdleTimeout = TimeSpan.FromHours(1), TimeProvider = time, Handler = Counting(handled) };
        await using var server = await PeerServer.StartAsync(options, ct).DefaultTimeout();

        // A well-behaved client with nothing to send yet: its stream is the first to pass the idle timeout. (Not one that
        // sent: its acknowledgement of the reply, also activity, rides on a heartbeat at a time this test does not control.)
        await using var quiet = await PeerClient.ConnectAsync(server.Address.ToString(), Messages.Steady(), ct).DefaultTimeout();
        time.Advance(TimeSpan.FromSeconds(10));

        // The holder: the other seven streams, each greeted, then silent.
        using var raw = new RawPeer(server.Address);
        var held = new List<AsyncDuplexStreamingCall<PeerBatch, PeerBatch>>();
        for (var i = 0; i < 7; i++)
        {
            held.Add(await raw.OpenAsync());
        }

        var endings = held.Select(EndingAsync).ToList();

        // Full, and no stream idle long enough: a new client is kept out.
        var refused = await Assert.ThrowsAsync<PeerDeliveryException>(() => PeerClient.ConnectAsync(server.Address.ToString(), Messages.Quick(), ct)).DefaultTimeout();
        Assert.Contains("MaxStreams", refused.Message, StringComparison.Ordinal);

        // The quiet client: 35 s without a request; the holder's streams: 25 s. The quiet client's stream gives way.
        time.Advance(TimeSpan.FromSeconds(25));
        await using var newcomer = await PeerClient.ConnectAsync(server.Address.ToString(), Messages.Steady(), ct).DefaultTimeout();
        Assert.Equal(2, Messages.Number(await newcomer.SendAsync(Messages.Numbered(2), ct).DefaultTimeout()));

        // The quiet client sends: it gets back in once one of the holder's streams has been idle long enough.
        var later = quiet.SendAsync(Messages.Numbered(3), ct);
        time.Advance(TimeSpan.FromSeconds(10));
        Assert.Equal(3, Messages.Number(await later.DefaultTimeout()));
        Assert.InRange(quiet.ReconnectCount, 1, long.MaxValue);
        Assert.Equal(StatusCode.Unavailable, await (await Task.WhenAny(endings).DefaultTimeout()).DefaultTimeout());
        Assert.Equal(4, Messages.Number(await newcomer.SendAsync(Messages.Numbered(4), ct).DefaultTimeout()));
        Assert.All(handled, pair => Assert.Equal(1, pair.Value));
        Assert.Equal(3, handled.Count);
    }

    [Fact]
    public async Task OneIdentityAtTheServersLimits_CannotKeepAnotherIdentityOut()
    {
        var ct = TestContext.Current.CancellationToken;
        var handled = new ConcurrentDictionary<long, int>();
        var options = new PeerServerOptions { BearerTokens = Tokens, MaxStreams = 8, MaxSessions = 8, Handler = Counting(handled) };
        await using var server = await PeerServer.StartAsync(options, ct).DefaultTimeout();
        using var raw = new RawPeer(server.Address);

        // Alice churns sessions, then opens streams until she is refused.
        for (var i = 0; i < 20; i++)
        {
            await TestTimeouts.WaitUntilAsync(() => server.Sessions.IdleCount == server.SessionCount);
            using var churn = await raw.OpenAsync(Alice());
            await WriteAsync(churn, Request(1, 1000 + i));
            Assert.Single((await ReadAsync(churn)).Envelopes);
        }

        await TestTimeouts.WaitUntilAsync(() => server.Sessions.IdleCount == server.SessionCount);
        Assert.InRange(server.SessionCount, 1, 4);
        var held = new List<AsyncDuplexStreamingCall<PeerBatch, PeerBatch>>();
        RpcException? refusal = null;
        while (refusal is null && held.Count < 8)
        {
            var call = raw.Exchange(Alice());
            held.Add(call);
            try
            {
                await ReadAsync(call);
            }
            catch (RpcException error)
            {
                refusal = error;
            }
        }

        Assert.NotNull(refusal);
        Assert.Equal(StatusCode.ResourceExhausted, refusal.StatusCode);
        Assert.Contains("MaxStreamsPerIdentity", refusal.Status.Detail, StringComparison.Ordinal);
        Assert.Equal(5, held.Count);

        // Bob, beside her, gets in and is answered, each request once.
        await using var bob = await PeerClient.ConnectAsync(server.Address.ToString(), Messages.Quick() with { BearerToken = "token-bob" }, ct).DefaultTimeout();
        var replies = await Task.WhenAll(Enumerable.Range(0, 50).Select(i => bob.SendAsync(Messages.Numbered(i), ct))).DefaultTimeout();
        Assert.Equal(Enumerable.Range(0, 50).Sum(i => (long)i), replies.Sum(Messages.Number));
        Assert.All(Enumerable.Range(0, 50), i => Assert.Equal(1, handled[i]));
        Assert.InRange(server.SessionCount, 2, 8);
    }

    [Fact]
    public async Task SessionChurn_WhileAClientIsCutOff_DoesNotCostItsRequestsInFlightTheirExactlyOnce()
    {
        var ct = TestContext.Current.CancellationToken;
        var handled = new ConcurrentDictionary<long, int>();
        var release = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var holding = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);

        // Numbers from 100 on are held until released, whatever the stream does: requests in flight when the network goes.
        var options = new PeerServerOptions
        {
            MaxSessions = 20,
            Handler = Counting(handled, async number =>
            {
                if (number >= 100)
                {
                    holding.TrySetResult();
                    await release.Task.ConfigureAwait(false);
                }
            }),
        };
        await using var server = await PeerServer.StartAsync(options, ct).DefaultTimeout();
        await using var proxy = new LoopbackProxy(server.Address);
        await using var client = await PeerClient.ConnectAsync(proxy.Address.ToString(), Messages.Quick(), ct).DefaultTimeout();

        // Answered and acknowledged (the next batch carries the mark), then requests in flight.
        var first = await Task.WhenAll(Enumerable.Range(0, 10).Select(i => client.SendAsync(Messages.Numbered(i), ct))).DefaultTimeout();
        Assert.Equal(45, first.Sum(Messages.Number));
        var inFlight = Enumerable.Range(100, 5).Select(i => client.SendAsync(Messages.Numbered(i), ct)).ToArray();
        await holding.Task.DefaultTimeout();

        // The client's network goes down; its request finishes on the server, its reply remembered and never acknowledged.
        proxy.Refusing = true;
        proxy.Reset();
        release.SetResult();
        await TestTimeouts.WaitUntilAsync(() => server.SessionCount == 1 && server.Sessions.IdleCount == 1);

        // Meanwhile a raw client churns three times as many sessions as the server keeps.
        using (var raw = new RawPeer(server.Address))
        {
            for (var i = 0; i < 60; i++)
            {
                await TestTimeouts.WaitUntilAsync(() => server.Sessions.IdleCount == server.SessionCount);
                using var churn = await raw.OpenAsync();
                await WriteAsync(churn, Request(1, 1000 + i));
                Assert.Single((await ReadAsync(churn)).Envelopes);
            }
        }

        // The client comes back: what it had in flight is answered, each request handled once.
        proxy.Refusing = false;
        var replies = await Task.WhenAll(inFlight).DefaultTimeout();
        Assert.Equal(Enumerable.Range(100, 5).Sum(i => (long)i), replies.Sum(Messages.Number));
        Assert.All(Enumerable.Range(0, 10).Concat(Enumerable.Range(100, 5)), i => Assert.Equal(1, handled[i]));
        Assert.InRange(server.SessionCount, 1, 20);
    }

    [Fact]
    public async Task SessionIdPresentedUnderAnotherIdentity_GetsANewSessionNotItsRememberedReplies()
    {
        var ct = TestContext.Current.CancellationToken;
        var handled = new ConcurrentDictionary<long, int>();
        var options = new PeerServerOptions { BearerTokens = Tokens, Handler = Counting(handled) };
        await using var server = await PeerServer.StartAsync(options, ct).DefaultTimeout();
        using var raw = new RawPeer(server.Address);

        // Alice's request is answered and, unacknowledged, remembered; her stream is reset (her session kept).
        string aliceSession;
        using (var alice = raw.Exchange(Alice()))
        {
            aliceSession = await SessionOfAsync(alice);
            await ReadAsync(alice);
            await WriteAsync(alice, Request(1, 7));
            Assert.Equal(7, Number((await ReadAsync(alice)).Envelopes[0]));
        }

        await TestTimeouts.WaitUntilAsync(() => server.Sessions.IdleCount == 1);

        // Bob presents her id and "resends" her sequence number: he gets a session of his own, and his request is handled.
        using (var bob = raw.Exchange(new Metadata { { "authorization", "Bearer token-bob" }, { SessionHeader, aliceSession } }))
        {
            Assert.NotEqual(aliceSession, await SessionOfAsync(bob));
            await ReadAsync(bob);
            await WriteAsync(bob, Request(1, 8));
            Assert.Equal(8, Number((await ReadAsync(bob)).Envelopes[0]));
        }

        // Alice's session is still hers: her resend is answered from memory, not handled again.
        using (var again = raw.Exchange(new Metadata { { "authorization", "Bearer token-alice" }, { SessionHeader, aliceSession } }))
        {
            Assert.Equal(aliceSession, await SessionOfAsync(again));
            await ReadAsync(again);
            await WriteAsync(again, Request(1, 7));
            Assert.Equal(7, Number((await ReadAsync(again)).Envelopes[0]));
        }

        await using var wellBehaved = await PeerClient.ConnectAsync(server.Address.ToString(), Messages.Quick() with { BearerToken = "token-bob" }, ct).DefaultTimeout();
        Assert.Equal(9, Messages.Number(await wellBehaved.SendAsync(Messages.Numbered(9), ct).DefaultTimeout()));
        Assert.Equal(1, handled[7]);
        Assert.Equal(1, handled[8]);
        Assert.Equal(1, handled[9]);
    }

    [Fact]
    public void Attach_AtMaxSessions_ForgetsNeverAcknowledgedThenSettledThenOwingEachIdleLongestFirst()
    {
        using var state = new PeerServerState(new PeerServerOptions { MaxSessions = 4 }, NullLogger.Instance, CancellationToken.None);
        var sessions = state.Sessions;

        // Idle in this order: owing (a reply unacknowledged), settled (all acknowledged), fresh (never acknowledged), settled.
        string[] idle = [Idle(sessions, handled: 2, acknowledged: 1), Idle(sessions, handled: 2, acknowledged: 2), Idle(sessions, handled: 5, acknowledged: 0), Idle(sessions, handled: 1, acknowledged: 1)];

        // Each new session (kept attached) makes room by forgetting one idle session.
        var forgotten = new List<string>();
        for (var i = 0; i < idle.Length; i++)
        {
            Assert.NotNull(sessions.Attach(null));
            forgotten.Add(Assert.Single(idle, id => !forgotten.Contains(id) && !sessions.Contains(id)));
        }

        Assert.Equal([idle[2], idle[1], idle[3], idle[0]], forgotten);
        Assert.Null(sessions.Attach(null)); // every session has a stream open: refused
    }

    private static Dictionary<string, string> Tokens => new() { ["token-alice"] = "alice", ["token-bob"] = "bob" };

    private static Metadata Alice() => new() { { "authorization", "Bearer token-alice" } };

    // Echoes each request, counting its invocations by the number it carries; hold runs first, for the handler to wait on.
    private static PeerHandler Counting(ConcurrentDictionary<long, int> handled, Func<long, Task>? hold = null) => async (request, token) =>
    {
        var number = Messages.Number(request);
        handled.AddOrUpdate(number, 1, static (_, count) => count + 1);
        if (hold is not null)
        {
            await hold(number).ConfigureAwait(false);
        }

        return request;
    };

    // A session that handled requests up to handled and had its replies acknowledged up to acknowledged, its stream gone.
    private static string Idle(PeerSessions sessions, ulong handled, ulong acknowledged)
    {
        var session = sessions.Attach(null)!;
        session.HandledThrough = handled;
        session.Acknowledge(acknowledged);
        sessions.Detach(session, clientClosed: false);
        return session.Id;
    }

    private static PeerBatch Request(ulong sequence, long number)
    {
        var message = Messages.Numbered(number);
        var batch = new PeerBatch();
        batch.Envelopes.Add(new Envelope { Sequence = sequence, Type = message.Type, Source = message.Source, Payload = ByteString.CopyFrom(message.Payload.Span) });
        return batch;
    }

    private static long Number(Envelope envelope) => Messages.Number(new PeerMessage(envelope.Type, envelope.Source, envelope.Payload.Memory));

    // Reads a held stream to its end (it is disposed at the test's end if the server never ends it) and says how it ended.
    private static async Task<StatusCode> EndingAsync(AsyncDuplexStreamingCall<PeerBatch, PeerBatch> call)
    {
        try
        {
            while (await call.ResponseStream.MoveNext(TestContext.Current.CancellationToken))
            {
            }

            return StatusCode.OK;
        }
        catch (RpcException error)
        {
            return error.StatusCode;
        }
        catch (OperationCanceledException)
        {
            return StatusCode.Cancelled;
        }
    }
}
