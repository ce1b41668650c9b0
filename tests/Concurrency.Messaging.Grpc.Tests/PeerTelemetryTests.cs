using System.Collections.Concurrent;
using System.Diagnostics;
using Xunit;

namespace Concurrency.Messaging.Grpc.Tests;

/// <summary>
/// The peers' instruments and spans, read as a user would: a <see cref="System.Diagnostics.Metrics.MeterListener"/> on
/// the library's meter and an <see cref="ActivityListener"/> on its source. Both are process-wide and other tests run
/// beside these, so counters are asserted at least at what this test did, and spans are found by a message type of their own.
/// </summary>
public sealed class PeerTelemetryTests
{
    private static readonly string[] PeerInstruments =
    [
        "concurrency.peer.client.messages.sent", "concurrency.peer.client.messages.received", "concurrency.peer.client.batches.sent",
        "concurrency.peer.client.resends", "concurrency.peer.client.reconnects", "concurrency.peer.client.half_open",
        "concurrency.peer.client.timeouts", "concurrency.peer.server.messages.received", "concurrency.peer.server.messages.sent",
        "concurrency.peer.server.batches.received", "concurrency.peer.server.batches.sent", "concurrency.peer.server.resends",
        "concurrency.peer.server.refused", "concurrency.peer.server.sessions", "concurrency.peer.server.streams",
        "concurrency.peer.server.remembered.size",
    ];

    [Fact]
    public async Task Meter_MessagesBothWays_CountersAndGaugesShowThem()
    {
        var ct = TestContext.Current.CancellationToken;
        using var recorder = new MeterRecorder();
        await using var server = await PeerServer.StartAsync(cancellationToken: ct).DefaultTimeout();
        await using var client = await PeerClient.ConnectAsync(server.Address.ToString(), Messages.Quick(), ct).DefaultTimeout();

        var replies = await Task.WhenAll(Enumerable.Range(0, 100).Select(i => client.SendAsync(Messages.Numbered(i), ct))).DefaultTimeout();

        Assert.Equal(99L * 100 / 2, replies.Sum(Messages.Number));
        Assert.All(PeerInstruments, name => Assert.Contains(name, recorder.Instruments.Keys));

        // A writer counts a batch once its write completes, and the replies can be back before it resumes to count them:
        // the counters catch up with the replies, not before them.
        await WaitUntilAsync(() => recorder.Total("concurrency.peer.client.messages.sent") >= 100);
        await WaitUntilAsync(() => recorder.Total("concurrency.peer.server.messages.sent") >= 100);
        Assert.True(recorder.Total("concurrency.peer.client.messages.received") >= 100);
        Assert.True(recorder.Total("concurrency.peer.client.batches.sent") >= 1);
        Assert.True(recorder.Total("concurrency.peer.server.messages.received") >= 100);
        Assert.True(recorder.Total("concurrency.peer.server.batches.received") >= 1);
        Assert.True(recorder.Observe("concurrency.peer.server.sessions") >= 1);
        Assert.True(recorder.Observe("concurrency.peer.server.streams") >= 1);
    }

    [Fact]
    public async Task Meter_WrongToken_CountsARefusalByReason()
    {
        var ct = TestContext.Current.CancellationToken;
        using var recorder = new MeterRecorder();
        await using var server = await PeerServer.StartAsync(new PeerServerOptions { BearerToken = "s3cret" }, ct).DefaultTimeout();

        await Assert.ThrowsAsync<PeerDeliveryException>(() => PeerClient.ConnectAsync(server.Address.ToString(), Messages.Quick() with { BearerToken = "wrong" }, ct)).DefaultTimeout();

        Assert.True(recorder.Total("concurrency.peer.server.refused", "reason", "unauthenticated") >= 1);
    }

    [Fact]
    public async Task Tracing_SendUnderAnActivity_ServerSpanIsAChildOfTheClientSpan()
    {
        var ct = TestContext.Current.CancellationToken;
        var type = $"traced-{Guid.NewGuid():N}";
        var stopped = new ConcurrentQueue<Activity>();
        using var listener = new ActivityListener
        {
            ShouldListenTo = source => source.Name == "Concurrency.Messaging" || source.Name == nameof(PeerTelemetryTests),
            Sample = (ref ActivityCreationOptions<ActivityContext> _) => ActivitySamplingResult.AllDataAndRecorded,
            ActivityStopped = stopped.Enqueue,
        };
        ActivitySource.AddActivityListener(listener);
        using var source = new ActivitySource(nameof(PeerTelemetryTests));
        await using var server = await PeerServer.StartAsync(cancellationToken: ct).DefaultTimeout();
        await using var client = await PeerClient.ConnectAsync(server.Address.ToString(), Messages.Quick(), ct).DefaultTimeout();

        Activity? caller;
        Task<PeerMessage> reply;
        using (caller = source.StartActivity("caller"))
        {
            reply = client.SendAsync(Messages.Numbered(42, type), ct);
            Assert.Same(caller, Activity.Current); // the send's span does not become the caller's current activity
        }

        Assert.Equal(42, Messages.Number(await reply.DefaultTimeout()));

        // Both spans stop before the reply reaches the caller: the server's before it writes the reply, the client's when the send settles.
        var spans = stopped.Where(span => Equals(span.GetTagItem("concurrency.peer.message.type"), type)).ToList();
        var send = Assert.Single(spans, span => span.Kind == ActivityKind.Client);
        var handle = Assert.Single(spans, span => span.Kind == ActivityKind.Server);
        Assert.NotNull(caller);
        Assert.Equal(caller.SpanId, send.ParentSpanId);
        Assert.Equal(send.TraceId, handle.TraceId);
        Assert.Equal(send.SpanId, handle.ParentSpanId);
        Assert.True(handle.HasRemoteParent);
        Assert.Equal("concurrency.peer.send", send.OperationName);
        Assert.Equal("concurrency.peer.handle", handle.OperationName);
    }

    private static async Task WaitUntilAsync(Func<bool> condition)
    {
        var deadline = DateTime.UtcNow + TestTimeouts.Default;
        while (!condition())
        {
            Assert.True(DateTime.UtcNow < deadline, "the condition never held");
            await Task.Delay(10, TestContext.Current.CancellationToken);
        }
    }
}
