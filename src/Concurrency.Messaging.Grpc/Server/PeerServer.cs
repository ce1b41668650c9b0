using System.Security.Cryptography.X509Certificates;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;

namespace Concurrency.Messaging.Grpc;

/// <summary>
/// A peer that answers <see cref="PeerClient"/>s: Kestrel serving the bidirectional stream of Protos/peer.proto over
/// HTTP/2, on loopback unless told otherwise. Each request is handed to <see cref="PeerServerOptions.Handler"/>; a
/// request a client writes again after a reconnect is answered from the server's memory of the reply, not handled twice
/// (while this server runs: a new server process starts with no memory, so across a restart a handler may see a
/// message again). Stopping ends every stream at once, with the replies already made written first; clients reconnect.
/// </summary>
/// <remarks>
/// A <c>WebApplication</c> of its own, registered with <see cref="PeerHosting.AddPeerService(Microsoft.Extensions.DependencyInjection.IServiceCollection, PeerServerOptions)"/>
/// and <see cref="PeerHosting.UsePeerServerLimits"/> as a hosted app would be, plus HTTP/2 and the certificate of its options; it logs through <see cref="PeerServerOptions.LoggerFactory"/>,
/// or not at all. To serve beside other endpoints, host the service in your app with <see cref="PeerHosting"/>.
/// </remarks>
public sealed class PeerServer : IAsyncDisposable
{
    private readonly WebApplication _app;
    private readonly PeerServerState _state;
    private int _stopped;

    private PeerServer(WebApplication app, PeerServerState state, IReadOnlyList<Uri> addresses)
    {
        _app = app;
        _state = state;
        Addresses = addresses;
    }

    /// <summary>Gets the addresses the server listens on, with the ports the operating system chose for port 0.</summary>
    public IReadOnlyList<Uri> Addresses { get; }

    /// <summary>Gets the first of <see cref="Addresses"/>: the one to give a <see cref="PeerClient"/>.</summary>
    public Uri Address => Addresses[0];

    /// <summary>Gets how many requests the handler was given.</summary>
    public long HandledCount => _state.Handled;

    /// <summary>Gets how many requests arrived again after a reconnect and were answered from memory instead of handled twice.</summary>
    public long DuplicateCount => _state.Duplicates;

    /// <summary>Gets how many requests failed because the handler threw, or the request or its reply was too large.</summary>
    public long FailedCount => _state.Failed;

    /// <summary>Gets how many client sessions the server remembers now (see <see cref="PeerServerOptions.MaxSessions"/>).</summary>
    public int SessionCount => _state.Sessions.Count;

    /// <summary>Gets the sessions, for tests.</summary>
    internal PeerSessions Sessions => _state.Sessions;

    /// <summary>Gets the bytes the server's remembered replies hold now, as allocated (see <see cref="PeerServerOptions.MaxRememberedBytes"/>).</summary>
    public long RememberedBytes => _state.RememberedBytes;

    /// <summary>Starts a server.</summary>
    /// <param name="options">Options, or null for the defaults (echo, on <c>http://127.0.0.1:0</c>).</param>
    /// <param name="cancellationToken">Cancels the start.</param>
    /// <returns>The running server. Dispose it.</returns>
    /// <exception cref="ArgumentException">An option is invalid.</exception>
    /// <exception cref="IOException">An address cannot be bound (for example, the port is taken).</exception>
    public static async Task<PeerServer> StartAsync(PeerServerOptions? options = null, CancellationToken cancellationToken = default)
    {
        options ??= new PeerServerOptions();
        options.Validate();
        var builder = WebApplication.CreateSlimBuilder();
        builder.Logging.ClearProviders();
        if (options.LoggerFactory is not null)
        {
            // The caller's factory in place of the host's, filters and all: registered as an instance, so the host's
            // container does not dispose it when the server goes.
            builder.Services.Replace(ServiceDescriptor.Singleton(options.LoggerFactory));
        }

        builder.Services.Configure<HostOptions>(host => host.ShutdownTimeout = TimeSpan.FromSeconds(5));
        builder.WebHost.UseUrls([.. options.Urls]);
        X509Certificate2? certificate = null;
        if (options.CertificatePath is not null)
        {
            certificate = X509CertificateLoader.LoadPkcs12FromFile(options.CertificatePath, options.CertificatePassword);
            builder.WebHost.UseKestrelHttpsConfiguration();
        }

        builder.WebHost.ConfigureKestrel(kestrel =>
        {
            kestrel.ConfigureEndpointDefaults(endpoint => endpoint.Protocols = HttpProtocols.Http2);
            if (certificate is not null)
            {
                kestrel.ConfigureHttpsDefaults(https => https.ServerCertificate = certificate);
            }
        });
        builder.WebHost.UsePeerServerLimits();
        builder.Services.AddPeerService(options);

        var app = builder.Build();
        app.MapPeerService();
        try
        {
            await app.StartAsync(cancellationToken).ConfigureAwait(false);
        }
        catch
        {
            await app.DisposeAsync().ConfigureAwait(false);
            throw;
        }

        var bound = app.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>()!.Addresses;
        return new PeerServer(app, app.Services.GetRequiredService<PeerServerState>(), [.. bound.Select(address => new Uri(address))]);
    }

    /// <summary>Stops the server: every stream ends (replies already made are written first), then Kestrel stops.</summary>
    /// <param name="cancellationToken">Cuts the graceful stop short.</param>
    /// <returns>A task that finishes when the server has stopped.</returns>
    public async Task StopAsync(CancellationToken cancellationToken = default)
    {
        if (Interlocked.Exchange(ref _stopped, 1) == 0)
        {
            await _app.StopAsync(cancellationToken).ConfigureAwait(false);
        }
    }

    /// <summary>Stops the server if it runs and releases it.</summary>
    /// <returns>A task that finishes when the server is gone.</returns>
    public async ValueTask DisposeAsync()
    {
        await StopAsync().ConfigureAwait(false);
        await _app.DisposeAsync().ConfigureAwait(false);
    }
}
