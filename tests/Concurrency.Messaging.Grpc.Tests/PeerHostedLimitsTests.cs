using System.Net.Sockets;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Http.Features;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;

namespace Concurrency.Messaging.Grpc.Tests;

/// <summary>
/// The server's connections, standalone and hosted with <see cref="PeerHosting.UsePeerServerLimits"/>: a raw TCP client
/// that connects and sends nothing, or only the HTTP/2 preface, is closed within
/// <see cref="PeerServerOptions.ConnectionIdleTimeout"/> (Kestrel's own clock: a real second), so that it cannot keep a
/// <see cref="PeerClient"/> out of <see cref="PeerServerOptions.MaxConnections"/>; and a hosted app with a bearer token
/// refuses to start on an address its server reports as plain http:// off loopback.
/// </summary>
public sealed class PeerHostedLimitsTests
{
    // Kestrel checks its timeouts once a second: an idle timeout of 1 s closes within about 2 s; 10 s leaves room for a
    // loaded machine and stays well under Kestrel's defaults (30 s for the preface, 130 s keep-alive).
    private static readonly TimeSpan Closed = TimeSpan.FromSeconds(10);

    private static readonly byte[] Preface = [.. "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"u8, 0, 0, 0, 4, 0, 0, 0, 0, 0]; // and an empty SETTINGS frame

    [Theory]
    [InlineData(false, false)]
    [InlineData(false, true)]
    [InlineData(true, false)]
    [InlineData(true, true)]
    public async Task IdleConnection_HoldsTheLastConnection_IsClosedWithinTheIdleTimeoutAndAPeerClientGetsIn(bool hosted, bool sendsPreface)
    {
        var ct = TestContext.Current.CancellationToken;
        var options = new PeerServerOptions { MaxConnections = 2, ConnectionIdleTimeout = TimeSpan.FromSeconds(1) };
        await using var server = await StartAsync(hosted, options);
        await using var beside = await PeerClient.ConnectAsync(server.Address, Messages.Steady(), ct).DefaultTimeout();
        using var idle = new TcpClient();
        await idle.ConnectAsync(server.Uri.Host, server.Uri.Port, ct).AsTask().DefaultTimeout();
        var socket = idle.GetStream();
        if (sendsPreface)
        {
            await socket.WriteAsync(Preface, ct).AsTask().DefaultTimeout();
            Assert.True(await socket.ReadAsync(new byte[64], ct).AsTask().DefaultTimeout() > 0, "the server's SETTINGS"); // let in: it holds a connection
        }

        var next = PeerClient.ConnectAsync(server.Address, Messages.Steady(), ct);

        await ClosedAsync(socket).WaitAsync(Closed, ct);
        await using (var client = await next.DefaultTimeout())
        {
            Assert.Equal(7, Messages.Number(await client.SendAsync(Messages.Numbered(7), ct).DefaultTimeout()));
        }

        Assert.Equal(8, Messages.Number(await beside.SendAsync(Messages.Numbered(8), ct).DefaultTimeout()));
        Assert.Equal(0, beside.ReconnectCount); // a connection with a stream open is not idle
    }

    [Theory]
    [InlineData("http://0.0.0.0:5000")]
    [InlineData("http://[::]:5000")]
    [InlineData("http://192.0.2.7:5000")]
    [InlineData("http://peer.example:5000")]
    public async Task StartAsync_TokenAndAServerReportingPlainHttpOffLoopback_FailsAndNamesTheAddress(string address)
    {
        var options = new PeerServerOptions { BearerToken = "s3cret" };
        await using var app = Build(options, new ReportingServer(address));

        var error = await Assert.ThrowsAsync<InvalidOperationException>(() => app.StartAsync(TestContext.Current.CancellationToken)).DefaultTimeout();

        Assert.Contains(address, error.Message, StringComparison.Ordinal);
        Assert.Contains("AllowInsecureCredentials", error.Message, StringComparison.Ordinal);
        Assert.True(app.Lifetime.ApplicationStopping.IsCancellationRequested, "the app is told to stop");
    }

    [Fact]
    public async Task StartAsync_TokensOfIdentitiesAndAServerReportingPlainHttpOffLoopback_Fails()
    {
        var options = new PeerServerOptions { BearerTokens = new Dictionary<string, string> { ["alice-token"] = "alice", ["bob-token"] = "bob" } };
        await using var app = Build(options, new ReportingServer("http://0.0.0.0:5000"));

        var error = await Assert.ThrowsAsync<InvalidOperationException>(() => app.StartAsync(TestContext.Current.CancellationToken)).DefaultTimeout();

        Assert.Contains("AllowInsecureCredentials", error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(null, false, "http://0.0.0.0:5000")]
    [InlineData("s3cret", true, "http://0.0.0.0:5000")]
    [InlineData("s3cret", false, "https://0.0.0.0:5001")]
    [InlineData("s3cret", false, "http://localhost:5000")]
    [InlineData("s3cret", false, "http://[::1]:5000")]
    [InlineData("s3cret", false, "http://unix:/run/peer.sock")]
    public async Task StartAsync_NoTokenOrAllowedOrNotClearTextOffLoopback_Starts(string? token, bool allowInsecure, string address)
    {
        var ct = TestContext.Current.CancellationToken;
        var options = new PeerServerOptions { BearerToken = token, AllowInsecureCredentials = allowInsecure };
        await using var app = Build(options, new ReportingServer(address));

        await app.StartAsync(ct).DefaultTimeout();

        Assert.False(app.Lifetime.ApplicationStopping.IsCancellationRequested);
        await app.StopAsync(ct).DefaultTimeout();
    }

    [Fact]
    public async Task StartAsync_HostedWithATokenOnLoopback_StartsAndServesAPeerClient()
    {
        var ct = TestContext.Current.CancellationToken;
        await using var server = await StartAsync(hosted: true, new PeerServerOptions { BearerToken = "s3cret" });

        await using var client = await PeerClient.ConnectAsync(server.Address, Messages.Quick() with { BearerToken = "s3cret" }, ct).DefaultTimeout();

        Assert.Equal(42, Messages.Number(await client.SendAsync(Messages.Numbered(42), ct).DefaultTimeout()));
    }

    // Reads until the server closes the connection (or resets it).
    private static async Task ClosedAsync(NetworkStream socket)
    {
        var buffer = new byte[4096];
        try
        {
            while (await socket.ReadAsync(buffer, TestContext.Current.CancellationToken) > 0)
            {
            }
        }
        catch (IOException)
        {
            // Reset rather than closed: gone either way.
        }
    }

    // The peer in an app of the test's own whose server is a stand-in that binds nothing and reports one address.
    private static WebApplication Build(PeerServerOptions options, IServer server)
    {
        var builder = WebApplication.CreateSlimBuilder();
        builder.Logging.ClearProviders();
        builder.Services.AddSingleton(server);
        builder.Services.AddPeerService(options);
        var app = builder.Build();
        app.MapPeerService();
        return app;
    }

    private static async Task<Running> StartAsync(bool hosted, PeerServerOptions options)
    {
        var ct = TestContext.Current.CancellationToken;
        if (!hosted)
        {
            var server = await PeerServer.StartAsync(options, ct).DefaultTimeout();
            return new Running(server.Address, server.DisposeAsync);
        }

        var builder = HostedPeer.Builder();
        builder.WebHost.UsePeerServerLimits();
        builder.Services.AddPeerService(options);
        var app = await HostedPeer.StartAsync(builder);
        return new Running(HostedPeer.Address(app), async () =>
        {
            await app.StopAsync(CancellationToken.None).ConfigureAwait(false);
            await app.DisposeAsync().ConfigureAwait(false);
        });
    }

    private sealed class Running(Uri uri, Func<ValueTask> stop) : IAsyncDisposable
    {
        public Uri Uri => uri;

        public string Address => uri.ToString();

        public ValueTask DisposeAsync() => stop();
    }

    // A server that listens nowhere and reports the address it was given, as Kestrel reports what it bound.
    private sealed class ReportingServer : IServer
    {
        public ReportingServer(string address)
        {
            var addresses = new ServerAddressesFeature();
            addresses.Addresses.Add(address);
            Features.Set<IServerAddressesFeature>(addresses);
        }

        public IFeatureCollection Features { get; } = new FeatureCollection();

        public Task StartAsync<TContext>(IHttpApplication<TContext> application, CancellationToken cancellationToken)
            where TContext : notnull
            => Task.CompletedTask;

        public Task StopAsync(CancellationToken cancellationToken) => Task.CompletedTask;

        public void Dispose()
        {
        }
    }

    private sealed class ServerAddressesFeature : IServerAddressesFeature
    {
        public ICollection<string> Addresses { get; } = [];

        public bool PreferHostingUrls { get; set; }
    }
}
