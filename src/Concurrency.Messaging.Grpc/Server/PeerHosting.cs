using System.Diagnostics.Metrics;
using Grpc.AspNetCore.Server;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Routing;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;

namespace Concurrency.Messaging.Grpc;

/// <summary>
/// Runs the peer service inside an ASP.NET Core app of your own: <see cref="AddPeerService(IServiceCollection, IConfiguration, PeerHandler)"/>
/// on its services, <see cref="MapPeerService"/> on the app. <see cref="PeerServer"/> is the same registration in a
/// <c>WebApplication</c> of its own.
/// </summary>
/// <remarks>
/// <para>
/// The app owns its server: <see cref="PeerServerOptions.Urls"/>, <see cref="PeerServerOptions.CertificatePath"/> and
/// <see cref="PeerServerOptions.LoggerFactory"/> apply to <see cref="PeerServer"/> only. Hosted, serve HTTP/2 on the
/// peer's endpoint, and call <see cref="UsePeerServerLimits"/> for the Kestrel limits <see cref="PeerServer"/> sets
/// (<see cref="PeerServerOptions.MaxConnections"/>, <see cref="PeerServerOptions.MaxStreamsPerConnection"/>,
/// <see cref="PeerServerOptions.ConnectionIdleTimeout"/>, keep-alive pings); they apply to the whole server, so an app
/// serving more than the peer may set its own instead. Every other option holds as documented; the peer's gRPC limits
/// (4 MiB a batch, the bearer token) are set on the peer service alone, not on the app's other gRPC services.
/// </para>
/// <para>
/// With a <see cref="PeerServerOptions.BearerToken"/>, the app's start fails (<see cref="InvalidOperationException"/>)
/// when its server listens on a plain <c>http://</c> address off the loopback interface, where clients would send the
/// token in clear text, unless <see cref="PeerServerOptions.AllowInsecureCredentials"/> is set: the addresses checked are
/// those the server reports once started, not <see cref="PeerServerOptions.Urls"/>.
/// </para>
/// <para>
/// The service logs through the app's <see cref="ILogger"/> (category <c>Concurrency.Messaging.Grpc.PeerService</c>),
/// measures on the meter <c>Concurrency.Messaging</c> that the app's <see cref="IMeterFactory"/> makes, and traces on the
/// activity source of the same name (docs/metrics.md).
/// </para>
/// </remarks>
public static class PeerHosting
{
    /// <summary>
    /// Adds the peer service with options bound from <paramref name="configuration"/> (for example the section
    /// <c>"Peer"</c> of the app's configuration, with keys named as <see cref="PeerServerOptions"/>'s properties, such as
    /// <c>MaxSessions</c> or <c>SessionRetention</c>), through the options pattern.
    /// </summary>
    /// <param name="services">The app's services.</param>
    /// <param name="configuration">The configuration to bind <see cref="PeerServerOptions"/> from.</param>
    /// <param name="handler">The handler that answers each request (a delegate: not something configuration can hold).</param>
    /// <returns><paramref name="services"/>.</returns>
    public static IServiceCollection AddPeerService(this IServiceCollection services, IConfiguration configuration, PeerHandler handler)
    {
        ArgumentNullException.ThrowIfNull(services);
        ArgumentNullException.ThrowIfNull(configuration);
        ArgumentNullException.ThrowIfNull(handler);
        services.AddOptions<PeerServerOptions>().Bind(configuration);
        return services.AddPeerServiceCore(provider => provider.GetRequiredService<IOptions<PeerServerOptions>>().Value with { Handler = handler });
    }

    /// <summary>Adds the peer service with the options given.</summary>
    /// <param name="services">The app's services.</param>
    /// <param name="options">Options (<c>new PeerServerOptions()</c> for the defaults: echo).</param>
    /// <returns><paramref name="services"/>.</returns>
    public static IServiceCollection AddPeerService(this IServiceCollection services, PeerServerOptions options)
    {
        ArgumentNullException.ThrowIfNull(services);
        ArgumentNullException.ThrowIfNull(options);
        return services.AddPeerServiceCore(_ => options);
    }

    /// <summary>
    /// Maps the peer service (<c>Peer/Exchange</c> of Protos/peer.proto) and checks its options now, so that an invalid
    /// option fails the app's start rather than its first stream.
    /// </summary>
    /// <param name="endpoints">The app.</param>
    /// <returns>The endpoint's convention builder, to require authorization or a host on it.</returns>
    /// <exception cref="InvalidOperationException"><see cref="AddPeerService(IServiceCollection, PeerServerOptions)"/> was not called.</exception>
    /// <exception cref="ArgumentException">An option is invalid.</exception>
    public static GrpcServiceEndpointConventionBuilder MapPeerService(this IEndpointRouteBuilder endpoints)
    {
        ArgumentNullException.ThrowIfNull(endpoints);
        if (endpoints.ServiceProvider.GetService<PeerServerState>() is null)
        {
            throw new InvalidOperationException("Call services.AddPeerService(...) before app.MapPeerService().");
        }

        return endpoints.MapGrpcService<PeerService>();
    }

    /// <summary>
    /// Sets the Kestrel limits that keep the peer's clients from holding the server: at most
    /// <see cref="PeerServerOptions.MaxConnections"/> connections and <see cref="PeerServerOptions.MaxStreamsPerConnection"/>
    /// streams on each; a connection with no stream, or one that sends no HTTP/2 preface and headers, closed after
    /// <see cref="PeerServerOptions.ConnectionIdleTimeout"/>; and a keep-alive ping every 10 seconds, answered within 20, so
    /// that a client machine gone without a word is found in half a minute, not when TCP's retransmissions give up. The
    /// options are those <see cref="AddPeerService(IServiceCollection, PeerServerOptions)"/> registered. <see cref="PeerServer"/>
    /// makes this same call.
    /// </summary>
    /// <param name="builder">The app's web host (<c>builder.WebHost</c>).</param>
    /// <returns><paramref name="builder"/>.</returns>
    /// <remarks>The limits are Kestrel's, for the whole server: every endpoint of the app, not the peer's alone.</remarks>
    public static IWebHostBuilder UsePeerServerLimits(this IWebHostBuilder builder)
    {
        ArgumentNullException.ThrowIfNull(builder);
        return builder.ConfigureServices(services => services.AddOptions<KestrelServerOptions>().Configure<IServiceProvider>((kestrel, provider) =>
        {
            var options = (provider.GetService<PeerServerState>()
                ?? throw new InvalidOperationException("Call services.AddPeerService(...) with UsePeerServerLimits().")).Options;
            var limits = kestrel.Limits;
            limits.MaxConcurrentConnections = options.MaxConnections;
            limits.Http2.MaxStreamsPerConnection = options.MaxStreamsPerConnection;
            limits.KeepAliveTimeout = options.ConnectionIdleTimeout;
            limits.RequestHeadersTimeout = options.ConnectionIdleTimeout;
            limits.Http2.KeepAlivePingDelay = TimeSpan.FromSeconds(10);
            limits.Http2.KeepAlivePingTimeout = TimeSpan.FromSeconds(20);
        }));
    }

    // The one registration, hosted or in PeerServer's own app: the service's gRPC limits, its token check, and its state.
    private static IServiceCollection AddPeerServiceCore(this IServiceCollection services, Func<IServiceProvider, PeerServerOptions> options)
    {
        services.AddGrpc().AddServiceOptions<PeerService>(grpc =>
        {
            grpc.MaxReceiveMessageSize = PeerClientOptions.WireLimitBytes;
            grpc.MaxSendMessageSize = PeerClientOptions.WireLimitBytes;
            grpc.Interceptors.Add<BearerTokenInterceptor>();
        });
        services.AddSingleton<BearerTokenInterceptor>();
        services.AddMetrics(); // the app's IMeterFactory, if it has none yet: the server's meter is the app's, not a static one
        services.AddHostedService<PeerEndpointCheck>();
        services.AddSingleton(provider =>
        {
            var resolved = options(provider);
            resolved.Validate();
            return new PeerServerState(
                resolved,
                provider.GetRequiredService<ILogger<PeerService>>(),
                provider.GetRequiredService<IHostApplicationLifetime>().ApplicationStopping,
                provider.GetRequiredService<IMeterFactory>().Create(PeerMeter.Name, typeof(PeerMeter).Assembly.GetName().Version?.ToString()));
        });
        return services;
    }
}
