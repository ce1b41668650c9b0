using Google.Protobuf;
using Microsoft.AspNetCore.Builder;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using static Concurrency.Messaging.Grpc.Tests.RawStream;

namespace Concurrency.Messaging.Grpc.Tests;

/// <summary>
/// What the peer service writes to its log, and through which logger: no session id (a reader of the log could take the
/// session over), a standalone server's refusals through the factory it was given, and a flood of refusals spaced out.
/// </summary>
public sealed class PeerLoggingTests
{
    private const string PeerCategory = "Concurrency.Messaging.Grpc.PeerService";

    [Fact]
    public async Task Exchange_SessionOpenedAndEndedWithDebugLogging_NoLogLineHoldsTheSessionId()
    {
        var ct = TestContext.Current.CancellationToken;
        var logs = new RecordingLoggerProvider();
        await using var app = await StartHostedAsync(logs, new PeerServerOptions());
        using var raw = new RawPeer(HostedPeer.Address(app));

        string session;
        using (var call = raw.Exchange())
        {
            session = await SessionOfAsync(call);
            await WriteAsync(call, new PeerBatch { Envelopes = { new Envelope { Sequence = 1, Type = "t", Payload = ByteString.CopyFrom(1, 2) } } });
            await call.RequestStream.CompleteAsync().DefaultTimeout();
            while (await call.ResponseStream.MoveNext(ct).DefaultTimeout())
            {
            }
        }

        // The stream's end is logged once the server is done with it, after the client has read the last reply.
        await TestTimeouts.WaitUntilAsync(() => logs.Records.Any(record => record.Category == PeerCategory && record.Message.Contains("ended", StringComparison.Ordinal)));
        Assert.False(string.IsNullOrEmpty(session));
        Assert.Contains(logs.Records, record => record.Category == PeerCategory && record.Message.Contains("opened", StringComparison.Ordinal));
        Assert.DoesNotContain(logs.Records, record => record.Message.Contains(session, StringComparison.Ordinal));
    }

    [Fact]
    public async Task StartAsync_LoggerFactoryGivenAndAStreamRefused_TheRefusalIsLoggedThroughIt()
    {
        var ct = TestContext.Current.CancellationToken;
        var logs = new RecordingLoggerProvider();
        using var factory = LoggerFactory.Create(logging => logging.AddProvider(logs).SetMinimumLevel(LogLevel.Debug));
        await using var server = await PeerServer.StartAsync(new PeerServerOptions { BearerToken = "s3cret", LoggerFactory = factory }, ct).DefaultTimeout();

        var refused = await Assert.ThrowsAsync<PeerDeliveryException>(() => PeerClient.ConnectAsync(server.Address.ToString(), Messages.Quick() with { BearerToken = "guess" }, ct)).DefaultTimeout();

        Assert.Equal(PeerDeliveryFailure.Unauthenticated, refused.Reason);
        Assert.Contains(logs.Records, record => record.Level == LogLevel.Warning
            && record.Category == PeerCategory
            && record.Message.Contains("unauthenticated", StringComparison.Ordinal));
    }

    [Fact]
    public async Task Exchange_HundredStreamsRefused_OneWarningPerIntervalAndTheNextCountsTheSuppressed()
    {
        var ct = TestContext.Current.CancellationToken;
        var logs = new RecordingLoggerProvider();
        var clock = new FakeTimeProvider();
        using var factory = LoggerFactory.Create(logging => logging.AddProvider(logs).SetMinimumLevel(LogLevel.Debug));
        // Room on the one connection for every stream: a refused stream ends at the client before Kestrel counts it closed,
        // and 100 in a tight loop would otherwise pass Kestrel's per-connection limit and be told to calm down instead.
        var options = new PeerServerOptions { BearerToken = "s3cret", LoggerFactory = factory, TimeProvider = clock, MaxStreamsPerConnection = 1000 };
        await using var server = await PeerServer.StartAsync(options, ct).DefaultTimeout();
        await using var bystander = await WellBehavedClient.ConnectAsync(server, Messages.Steady() with { BearerToken = "s3cret" });
        using var raw = new RawPeer(server.Address);
        var wrong = new Metadata { { "authorization", "Bearer guess" } };

        for (var i = 0; i < 100; i++)
        {
            await RefusedAsync(raw, wrong);
        }

        Assert.Single(Warnings(logs));
        clock.Advance(TimeSpan.FromSeconds(11));
        await RefusedAsync(raw, wrong);

        var warnings = Warnings(logs);
        Assert.Equal(2, warnings.Count);
        Assert.Contains("99 more refused", warnings[1], StringComparison.Ordinal);
        await bystander.AssertServedAsync();
    }

    private static List<string> Warnings(RecordingLoggerProvider logs)
        => [.. logs.Records.Where(record => record.Level == LogLevel.Warning && record.Category == PeerCategory).Select(record => record.Message)];

    private static async Task RefusedAsync(RawPeer raw, Metadata headers)
    {
        using var call = raw.Exchange(headers);
        var error = await Assert.ThrowsAsync<RpcException>(() => call.ResponseStream.MoveNext(TestContext.Current.CancellationToken)).DefaultTimeout();
        Assert.Equal(StatusCode.Unauthenticated, error.StatusCode);
    }

    // The peer service in an app of the test's own, logging at every level into the recorder.
    private static async Task<WebApplication> StartHostedAsync(RecordingLoggerProvider logs, PeerServerOptions options)
    {
        var builder = HostedPeer.Builder(logs);
        builder.Logging.SetMinimumLevel(LogLevel.Debug);
        builder.Services.AddPeerService(options);
        return await HostedPeer.StartAsync(builder);
    }
}
