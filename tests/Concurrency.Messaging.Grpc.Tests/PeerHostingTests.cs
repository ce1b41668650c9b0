using Microsoft.AspNetCore.Builder;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;

namespace Concurrency.Messaging.Grpc.Tests;

/// <summary>The peer service inside an ASP.NET Core app of the test's own, as a user hosts it: options from configuration, logs through the app.</summary>
public sealed class PeerHostingTests
{
    [Fact]
    public async Task AddPeerService_InAnAppOfItsOwn_ServesWithOptionsFromConfigurationAndLogsThroughTheApp()
    {
        var ct = TestContext.Current.CancellationToken;
        var logs = new RecordingLoggerProvider();
        var builder = HostedPeer.Builder(logs);
        builder.Configuration.AddInMemoryCollection(new Dictionary<string, string?>
        {
            ["Peer:MaxSessions"] = "7",
            ["Peer:SessionRetention"] = "00:00:30",
            ["Peer:BearerToken"] = "s3cret",
        });
        builder.Services.AddPeerService(builder.Configuration.GetSection("Peer"), (request, _) => ValueTask.FromResult(request with { Source = "hosted" }));
        await using var app = await HostedPeer.StartAsync(builder);
        try
        {
            var address = HostedPeer.Address(app).ToString();

            await using (var client = await PeerClient.ConnectAsync(address, Messages.Quick() with { BearerToken = "s3cret" }, ct).DefaultTimeout())
            {
                var reply = await client.SendAsync(Messages.Numbered(42), ct).DefaultTimeout();
                Assert.Equal(42, Messages.Number(reply));
                Assert.Equal("hosted", reply.Source);
            }

            var refused = await Assert.ThrowsAsync<PeerDeliveryException>(() => PeerClient.ConnectAsync(address, Messages.Quick() with { BearerToken = "wrong" }, ct)).DefaultTimeout();
            Assert.Equal(PeerDeliveryFailure.Unauthenticated, refused.Reason);

            var options = app.Services.GetRequiredService<IOptions<PeerServerOptions>>().Value;
            Assert.Equal(7, options.MaxSessions);
            Assert.Equal(TimeSpan.FromSeconds(30), options.SessionRetention);
            Assert.Contains(logs.Records, record => record.Level == LogLevel.Warning
                && record.Category == "Concurrency.Messaging.Grpc.PeerService"
                && record.Message.Contains("unauthenticated", StringComparison.Ordinal));
        }
        finally
        {
            await app.StopAsync(ct).DefaultTimeout();
        }
    }

    [Fact]
    public async Task MapPeerService_WithoutAddPeerService_SaysWhatIsMissing()
    {
        await using var app = WebApplication.CreateSlimBuilder().Build();

        var error = Assert.Throws<InvalidOperationException>(() => app.MapPeerService());

        Assert.Contains("AddPeerService", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task MapPeerService_InvalidOptionInConfiguration_FailsAtMapNotAtTheFirstStream()
    {
        var builder = WebApplication.CreateSlimBuilder();
        builder.Configuration.AddInMemoryCollection(new Dictionary<string, string?> { ["Peer:MaxSessions"] = "0" });
        builder.Services.AddPeerService(builder.Configuration.GetSection("Peer"), PeerHandlers.Echo);
        await using var app = builder.Build();

        var error = Assert.Throws<ArgumentOutOfRangeException>(() => app.MapPeerService());

        Assert.Equal("MaxSessions", error.ParamName);
    }
}
