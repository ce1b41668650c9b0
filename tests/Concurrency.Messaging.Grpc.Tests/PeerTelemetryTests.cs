using System.Collections.Concurrent;
using System.Diagnostics;
using System.Diagnostics.Metrics;
using Google.Protobuf;
using Microsoft.Extensions.DependencyInjection;
using static Concurrency.Messaging.Grpc.Tests.RawStream;

namespace Concurrency.Messaging.Grpc.Tests;

/// <summary>
/// The peers' instruments and spans, read as a user would: a <see cref="MeterListener"/> on the library's meter and an
/// <see cref="ActivityListener"/> on its source, checked against the names docs/metrics.md lists. Both listeners are
/// process-wide and other tests run beside these, so each test names its server (<see cref="PeerServerOptions.Name"/>)
/// and picks its measurements by that tag, and finds its spans by a message type of its own.
/// </summary>
public sealed class PeerTelemetryTests
{
    private const string ServerName = "concurrency.peer.server.name";
    private const string ErrorType = "error.type";
    private const string RpcMethod = "concurrency.messaging.grpc.Peer/Exchange";

    private static readonly string[] PeerInstruments =
    [
        "concurrency.peer.client.messages.sent", "concurrency.peer.client.messages.received", "concurrency.peer.client.batches.sent",
        "concurrency.peer.client.resends", "concurrency.peer.client.reconnects", "concurrency.peer.client.half_open",
        "concurrency.peer.client.timeouts", "concurrency.peer.client.send.duration",
        "concurrency.peer.server.messages.received", "concurrency.peer.server.messages.sent",
        "concurrency.peer.server.batches.received", "concurrency.peer.server.batches.sent", "concurrency.peer.server.resends",
        "concurrency.peer.server.refused", "concurrency.peer.server.request.duration", "concurrency.peer.server.session.count",
        "concurrency.peer.server.stream.count", "concurrency.peer.server.remembered.size",
    ];

    [Fact]
    public async Task Meter_MessagesBothWays_InstrumentsByTheirNamesTaggedWithTheServersName()
    {
        var ct = TestContext.Current.CancellationToken;
        using var recorder = new MeasurementRecorder();
        var name = Unique("server");
        var published = new ConcurrentDictionary<Instrument, bool>();
        using var names = InstrumentNames(published);
        await using var peers = await PeerPair.StartAsync(new PeerServerOptions { Name = name }, Messages.Steady());
        var (server, client) = peers;

        var replies = await Task.WhenAll(Enumerable.Range(0, 100).Select(i => client.SendAsync(Messages.Numbered(i), ct))).DefaultTimeout();

        Assert.Equal(99L * 100 / 2, replies.Sum(Messages.Number));

        // A writer counts a batch once its write completes, and the replies can be back before it resumes to count them:
        // the counters catch up with the replies, not before them.
        await TestTimeouts.WaitUntilAsync(() => recorder.Total("concurrency.peer.server.messages.sent", ServerName, name) >= 100);
        Assert.True(recorder.Total("concurrency.peer.server.messages.received", ServerName, name) >= 100);
        Assert.True(recorder.Total("concurrency.peer.server.batches.received", ServerName, name) >= 1);
        Assert.True(recorder.Total("concurrency.peer.server.batches.sent", ServerName, name) >= 1);
        var observed = recorder.Observe().Where(measured => Equals(measured.Tag(ServerName), name)).ToList();
        Assert.Equal(1, Assert.Single(observed, measured => measured.Instrument.Name == "concurrency.peer.server.session.count").Value);
        Assert.Equal(1, Assert.Single(observed, measured => measured.Instrument.Name == "concurrency.peer.server.stream.count").Value);

        // Other tests' servers publish instruments of the same names: this server's are those on the meter its own
        // measurements came on, and each of the server's names is published there. The client's instruments are on the
        // library's one static meter; its sends, told apart by this server's port, were measured, one each.
        var own = Assert.Single(recorder.Of("concurrency.peer.server.messages.received", ServerName, name).Select(measured => measured.Instrument.Meter).Distinct());
        var ours = published.Keys.Where(instrument => instrument.Meter == own).ToDictionary(instrument => instrument.Name);
        Assert.All(PeerInstruments.Where(instrument => instrument.StartsWith("concurrency.peer.server.", StringComparison.Ordinal)), instrument => Assert.Contains(instrument, ours.Keys));
        Assert.All(PeerInstruments.Where(instrument => instrument.StartsWith("concurrency.peer.client.", StringComparison.Ordinal)), instrument => Assert.Contains(published.Keys, p => p.Name == instrument));
        Assert.Equal(100, recorder.Of("concurrency.peer.client.send.duration", "server.port", server.Address.Port).Count(measured => measured.Tag(ErrorType) is null));
        Assert.DoesNotContain(published.Keys, instrument => instrument.Name is "concurrency.peer.server.sessions" or "concurrency.peer.server.streams"); // up-down counters are not pluralized
        Assert.Equal("{session}", ours["concurrency.peer.server.session.count"].Unit);
        Assert.Equal("s", ours["concurrency.peer.server.request.duration"].Unit);
    }

    [Fact]
    public async Task Meter_WrongToken_CountsTheRefusalWithItsReasonAsErrorType()
    {
        var ct = TestContext.Current.CancellationToken;
        using var recorder = new MeasurementRecorder();
        var name = Unique("guarded");
        await using var server = await PeerServer.StartAsync(new PeerServerOptions { BearerToken = "s3cret", Name = name }, ct).DefaultTimeout();

        await Assert.ThrowsAsync<PeerDeliveryException>(() => PeerClient.ConnectAsync(server.Address.ToString(), Messages.Quick() with { BearerToken = "wrong" }, ct)).DefaultTimeout();
        await using var client = await PeerClient.ConnectAsync(server.Address.ToString(), Messages.Quick() with { BearerToken = "s3cret" }, ct).DefaultTimeout();

        Assert.Equal(7, Messages.Number(await client.SendAsync(Messages.Numbered(7), ct).DefaultTimeout()));
        var refusal = Assert.Single(recorder.Of("concurrency.peer.server.refused", ServerName, name));
        Assert.Equal("unauthenticated", refusal.Tag(ErrorType));
        Assert.Null(refusal.Tag("reason"));
    }

    [Fact]
    public async Task Meter_RawClientRepeatsASequence_RefusalCountedAsErrorTypeWhileAPeerClientBesideIsServed()
    {
        var ct = TestContext.Current.CancellationToken;
        using var recorder = new MeasurementRecorder();
        var name = Unique("abused");
        await using var server = await PeerServer.StartAsync(new PeerServerOptions { Name = name }, ct).DefaultTimeout();
        await using var beside = await WellBehavedClient.ConnectAsync(server); // served before the abuse
        using var peer = new RawPeer(server.Address);
        using var raw = await peer.OpenAsync();

        await WriteAsync(raw, Requests("abuse", 2, 1));
        var refused = await Assert.ThrowsAsync<RpcException>(() => ReadAsync(raw));

        Assert.Equal(StatusCode.InvalidArgument, refused.StatusCode);
        await beside.AssertServedAsync(); // and after it, on the same connection
        var refusal = Assert.Single(recorder.Of("concurrency.peer.server.refused", ServerName, name));
        Assert.Equal("sequence_order", refusal.Tag(ErrorType));
        Assert.Equal(40, server.HandledCount); // only the PeerClient's requests reached the handler, 20 before and 20 after
    }

    [Fact]
    public async Task Meter_SendsAndAFailingHandler_DurationHistogramsRecordEachWithItsOutcome()
    {
        var ct = TestContext.Current.CancellationToken;
        using var recorder = new MeasurementRecorder();
        var name = Unique("timed");
        var options = new PeerServerOptions
        {
            Name = name,
            Handler = (request, _) => request.Type == "fail" ? throw new InvalidOperationException("no") : ValueTask.FromResult(request),
        };
        await using var peers = await PeerPair.StartAsync(options, Messages.Steady());
        var (server, client) = peers;

        await Task.WhenAll(Enumerable.Range(0, 10).Select(i => client.SendAsync(Messages.Numbered(i), ct))).DefaultTimeout();
        await Assert.ThrowsAsync<PeerRemoteException>(() => client.SendAsync(Messages.Numbered(0, "fail"), ct)).DefaultTimeout();

        Assert.Equal(11, server.HandledCount);
        var handled = recorder.Of("concurrency.peer.server.request.duration", ServerName, name).ToList();
        Assert.Equal(11, handled.Count);
        Assert.All(handled, measured => Assert.InRange(measured.Value, 0, TestTimeouts.Default.TotalSeconds));
        Assert.All(handled, measured => Assert.Equal(RpcMethod, measured.Tag("rpc.method")));
        Assert.All(handled, measured => Assert.Equal("grpc", measured.Tag("rpc.system.name")));
        Assert.Equal(10, handled.Count(measured => measured.Tag(ErrorType) is null));
        Assert.Equal(1, handled.Count(measured => Equals(measured.Tag(ErrorType), "failed")));
        var sends = recorder.Of("concurrency.peer.client.send.duration", "server.port", server.Address.Port).ToList();
        Assert.Equal(11, sends.Count);
        Assert.All(sends, measured => Assert.Equal(server.Address.Host, measured.Tag("server.address")));
        Assert.All(sends, measured => Assert.Equal(RpcMethod, measured.Tag("rpc.method")));
        Assert.Equal(1, sends.Count(measured => Equals(measured.Tag(ErrorType), "remote")));
    }

    [Fact]
    public async Task Meter_TwoServersInOneProcess_EachReportsItsOwnMeasurementsUnderItsName()
    {
        var ct = TestContext.Current.CancellationToken;
        using var recorder = new MeasurementRecorder();
        var (first, second) = (Unique("first"), Unique("second"));
        await using var one = await PeerServer.StartAsync(new PeerServerOptions { Name = first }, ct).DefaultTimeout();
        await using var two = await PeerServer.StartAsync(new PeerServerOptions { Name = second }, ct).DefaultTimeout();
        await using var toOne = await PeerClient.ConnectAsync(one.Address.ToString(), Messages.Steady(), ct).DefaultTimeout();
        await using var toTwo = await PeerClient.ConnectAsync(two.Address.ToString(), Messages.Steady(), ct).DefaultTimeout();
        await using var alsoToTwo = await PeerClient.ConnectAsync(two.Address.ToString(), Messages.Steady(), ct).DefaultTimeout();

        await Task.WhenAll(Enumerable.Range(0, 3).Select(i => toOne.SendAsync(Messages.Numbered(i), ct))).DefaultTimeout();
        await Task.WhenAll(Enumerable.Range(0, 50).Select(i => toTwo.SendAsync(Messages.Numbered(i), ct))).DefaultTimeout();
        await alsoToTwo.SendAsync(Messages.Numbered(1), ct).DefaultTimeout();

        Assert.Equal(3, one.HandledCount);
        Assert.Equal(51, two.HandledCount);
        Assert.InRange(recorder.Total("concurrency.peer.server.messages.received", ServerName, first), 3, 50);
        Assert.True(recorder.Total("concurrency.peer.server.messages.received", ServerName, second) >= 51);
        var sessions = recorder.Observe().Where(measured => measured.Instrument.Name == "concurrency.peer.server.session.count").ToList();
        Assert.Equal(1, Assert.Single(sessions, measured => Equals(measured.Tag(ServerName), first)).Value);
        Assert.Equal(2, Assert.Single(sessions, measured => Equals(measured.Tag(ServerName), second)).Value);
    }

    [Fact]
    public async Task Meter_HostedApp_MeterComesFromTheAppsMeterFactoryAndGoesWithIt()
    {
        var ct = TestContext.Current.CancellationToken;
        using var recorder = new MeasurementRecorder();
        var name = Unique("hosted");
        var builder = HostedPeer.Builder();
        builder.Services.AddPeerService(new PeerServerOptions { Name = name });
        IMeterFactory factory;
        await using (var app = await HostedPeer.StartAsync(builder))
        {
            factory = app.Services.GetRequiredService<IMeterFactory>();
            await using (var client = await PeerClient.ConnectAsync(HostedPeer.Address(app).ToString(), Messages.Quick(), ct).DefaultTimeout())
            {
                Assert.Equal(3, Messages.Number(await client.SendAsync(Messages.Numbered(3), ct).DefaultTimeout()));
            }

            var received = recorder.Of("concurrency.peer.server.messages.received", ServerName, name).First();
            Assert.Same(factory, received.Instrument.Meter.Scope);
            Assert.Equal("Concurrency.Messaging", received.Instrument.Meter.Name);
            await app.StopAsync(ct).DefaultTimeout();
        }

        // The app's container disposed its factory's meters: a listener hears that the server's instruments are done.
        Assert.Contains(recorder.Completed, instrument => instrument.Name == "concurrency.peer.server.messages.received" && instrument.Meter.Scope == factory);
    }

    [Fact]
    public async Task StartAsync_BlankName_ThrowsNamingTheOption()
    {
        var error = await Assert.ThrowsAsync<ArgumentException>(() => PeerServer.StartAsync(new PeerServerOptions { Name = " " }, TestContext.Current.CancellationToken)).DefaultTimeout();

        Assert.Equal(nameof(PeerServerOptions.Name), error.ParamName);
    }

    [Fact]
    public async Task Tracing_SendUnderAnActivity_RpcSpansTheServersAChildOfTheClients()
    {
        var ct = TestContext.Current.CancellationToken;
        var type = Unique("traced");
        using var spans = new SpanRecorder();
        using var source = new ActivitySource(nameof(PeerTelemetryTests));
        await using var peers = await PeerPair.StartAsync();
        var (server, client) = peers;

        Activity? caller;
        Task<PeerMessage> reply;
        using (caller = source.StartActivity("caller"))
        {
            reply = client.SendAsync(Messages.Numbered(42, type), ct);
            Assert.Same(caller, Activity.Current); // the send's span does not become the caller's current activity
        }

        Assert.Equal(42, Messages.Number(await reply.DefaultTimeout()));

        // Both spans stop before the reply reaches the caller: the server's before it writes the reply, the client's when the send settles.
        var send = Assert.Single(spans.Of(type), span => span.Kind == ActivityKind.Client);
        var handle = Assert.Single(spans.Of(type), span => span.Kind == ActivityKind.Server);
        Assert.NotNull(caller);
        Assert.Equal(caller.SpanId, send.ParentSpanId);
        Assert.Equal(send.TraceId, handle.TraceId);
        Assert.Equal(send.SpanId, handle.ParentSpanId);
        Assert.True(handle.HasRemoteParent);
        Assert.All([send, handle], span =>
        {
            Assert.Equal(RpcMethod, span.OperationName);
            Assert.Equal(RpcMethod, span.GetTagItem("rpc.method"));
            Assert.Equal("grpc", span.GetTagItem("rpc.system.name"));
            Assert.Equal(ActivityStatusCode.Unset, span.Status);
        });
        Assert.Equal(server.Address.Port, send.GetTagItem("server.port"));
    }

    [Fact]
    public async Task Tracing_CallerCancelsASend_ItsSpanEndsWithAnErrorStatusAndItsDurationIsRecorded()
    {
        var ct = TestContext.Current.CancellationToken;
        var hang = new Hang();
        using var spans = new SpanRecorder();
        using var recorder = new MeasurementRecorder();
        await using var peers = await PeerPair.StartAsync(new PeerServerOptions { Handler = hang.Handler });
        var (server, client) = peers;
        using var cancel = CancellationTokenSource.CreateLinkedTokenSource(ct);

        var send = client.SendAsync(Messages.Numbered(1, hang.Type), cancel.Token);
        await hang.Started.DefaultTimeout();
        await cancel.CancelAsync();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => send).DefaultTimeout();
        spans.AssertEndedInError(hang.Type, ActivityKind.Client, "cancelled");
        Assert.Single(recorder.Of("concurrency.peer.client.send.duration", "server.port", server.Address.Port), measured => Equals(measured.Tag(ErrorType), "cancelled"));

        // The handler still holds the first client's session (the server never heard of the cancel): a second client is served.
        await WellBehavedClient.AssertNewClientServedAsync(server, Messages.Quick());
    }

    [Fact]
    public async Task Tracing_SendTimesOut_ItsSpanEndsWithAnErrorStatusAndTimeoutAsErrorType()
    {
        var ct = TestContext.Current.CancellationToken;
        var hang = new Hang();
        using var spans = new SpanRecorder();
        await using var peers = await PeerPair.StartAsync(new PeerServerOptions { Handler = hang.Handler }, Messages.Quick() with { DeliveryTimeout = TimeSpan.FromMilliseconds(300) });
        var (server, client) = peers;

        var timedOut = await Assert.ThrowsAsync<PeerDeliveryException>(() => client.SendAsync(Messages.Numbered(1, hang.Type), ct)).DefaultTimeout();

        Assert.Equal(PeerDeliveryFailure.Timeout, timedOut.Reason);
        spans.AssertEndedInError(hang.Type, ActivityKind.Client, "timeout");
        await WellBehavedClient.AssertNewClientServedAsync(server, Messages.Quick());
    }

    [Fact]
    public async Task Tracing_RawClientResetsItsStreamDuringAHandler_ServerSpanEndsCancelledWhileAPeerClientBesideIsServed()
    {
        var ct = TestContext.Current.CancellationToken;
        var hang = new Hang();
        using var spans = new SpanRecorder();
        using var recorder = new MeasurementRecorder();
        var name = Unique("reset");
        await using var server = await PeerServer.StartAsync(new PeerServerOptions { Name = name, Handler = hang.Handler }, ct).DefaultTimeout();
        await using var beside = await WellBehavedClient.ConnectAsync(server); // served before the reset
        using var peer = new RawPeer(server.Address);
        using (var raw = await peer.OpenAsync())
        {
            await WriteAsync(raw, Requests(hang.Type, 1));
            await hang.Started.DefaultTimeout();
        }

        // The reset cancels the handler's token: its span ends then, not never.
        await TestTimeouts.WaitUntilAsync(() => spans.Of(hang.Type).Any(span => span.Kind == ActivityKind.Server));
        Assert.Single(spans.Of(hang.Type)); // the server's: a raw client makes no span of its own
        spans.AssertEndedInError(hang.Type, ActivityKind.Server, "cancelled");
        Assert.Single(recorder.Of("concurrency.peer.server.request.duration", ServerName, name), measured => Equals(measured.Tag(ErrorType), "cancelled"));
        await beside.AssertServedAsync(); // and after it, on the same connection
    }

    private static string Unique(string prefix) => $"{prefix}-{Guid.NewGuid():N}";

    // A handler that answers at once, except a request of its own type: that one says it started, then waits for its
    // stream's token (for twice the tests' bound, so only a cancel ends it in time).
    private sealed class Hang
    {
        private readonly TaskCompletionSource _started = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public Hang() => Handler = async (request, cancellationToken) =>
        {
            if (request.Type == Type)
            {
                _started.TrySetResult();
                await Task.Delay(TestTimeouts.Default * 2, cancellationToken);
            }

            return request;
        };

        /// <summary>Gets the message type that hangs, unique to the test: its spans are told from other tests' by it.</summary>
        public string Type { get; } = Unique("hang");

        public PeerHandler Handler { get; }

        /// <summary>Gets a task that completes when a request of <see cref="Type"/> reached the handler.</summary>
        public Task Started => _started.Task;
    }

    // Every instrument of the library's meter name that is published while the listener runs (or was before it started).
    private static MeterListener InstrumentNames(ConcurrentDictionary<Instrument, bool> published)
    {
        var listener = new MeterListener
        {
            InstrumentPublished = (instrument, _) =>
            {
                if (instrument.Meter.Name == "Concurrency.Messaging")
                {
                    published[instrument] = true;
                }
            },
        };
        listener.Start();
        return listener;
    }

    // One batch of requests of `type`, numbered as given (in any order: a hostile client's choice).
    private static PeerBatch Requests(string type, params ulong[] sequences)
    {
        var batch = new PeerBatch();
        foreach (var sequence in sequences)
        {
            batch.Envelopes.Add(new Envelope { Sequence = sequence, Type = type, Source = "raw", Payload = ByteString.CopyFrom(new byte[8]) });
        }

        return batch;
    }

    // The spans of the library's source (and this class's own) that stopped while it listened.
    private sealed class SpanRecorder : IDisposable
    {
        private readonly ConcurrentQueue<Activity> _stopped = new();
        private readonly ActivityListener _listener;

        public SpanRecorder()
        {
            _listener = new ActivityListener
            {
                ShouldListenTo = source => source.Name == "Concurrency.Messaging" || source.Name == nameof(PeerTelemetryTests),
                Sample = (ref ActivityCreationOptions<ActivityContext> _) => ActivitySamplingResult.AllDataAndRecorded,
                ActivityStopped = _stopped.Enqueue,
            };
            ActivitySource.AddActivityListener(_listener);
        }

        public IEnumerable<Activity> Of(string type) => _stopped.Where(span => Equals(span.GetTagItem("concurrency.peer.message.type"), type));

        /// <summary>Asserts that the one <paramref name="kind"/> span of <paramref name="type"/> ended in error, with <paramref name="errorType"/> as its error type.</summary>
        public void AssertEndedInError(string type, ActivityKind kind, string errorType)
        {
            var span = Assert.Single(Of(type), span => span.Kind == kind);
            Assert.Equal(ActivityStatusCode.Error, span.Status);
            Assert.Equal(errorType, span.GetTagItem(ErrorType));
        }

        public void Dispose() => _listener.Dispose();
    }
}
