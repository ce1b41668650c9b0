using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;

namespace Concurrency.Messaging.Grpc;

/// <summary>
/// Runs a <see cref="SequenceReplica"/>'s parts inside an ASP.NET Core app of your own: the peer service (with
/// <see cref="PeerHosting.MapPeerService"/> on the app, and <see cref="PeerHosting.UsePeerServerLimits"/> on its host, as
/// for any peer service) answering with the replica's handler, and a hosted service that opens the data folder, checks
/// the id with the peers and runs the synchronization timer. Requests that arrive before it started are answered with an
/// error the client fails over from.
/// </summary>
public static class ReplicaHosting
{
    /// <summary>Adds a replica: its peer service (with <see cref="SequenceReplicaOptions.Server"/>'s options) and its hosted service.</summary>
    /// <param name="services">The app's services.</param>
    /// <param name="options">The replica's options; <see cref="SequenceReplicaOptions.Server"/>'s addresses, certificate and logger are the app's, not these.</param>
    /// <returns><paramref name="services"/>.</returns>
    /// <exception cref="ArgumentException">An option is invalid.</exception>
    public static IServiceCollection AddSequenceReplica(this IServiceCollection services, SequenceReplicaOptions options)
    {
        ArgumentNullException.ThrowIfNull(services);
        ArgumentNullException.ThrowIfNull(options);
        var node = new ReplicaNode(options);

        // Made by a factory, so that the container disposes it with the app, also when the app's start failed after it opened.
        services.AddSingleton(_ => node);
        services.AddHostedService(provider => new ReplicaService(provider.GetRequiredService<ReplicaNode>()));
        return services.AddPeerService(options.Server with { Handler = node.HandleAsync });
    }

    // The node's start and stop as the host's: a refused id or a folder in use fails the app's start.
    private sealed class ReplicaService(ReplicaNode node) : IHostedService
    {
        public async Task StartAsync(CancellationToken cancellationToken)
        {
            await node.OpenAsync().ConfigureAwait(false);
            await node.CheckAsync(cancellationToken).ConfigureAwait(false);
        }

        public Task StopAsync(CancellationToken cancellationToken) => node.DisposeAsync().AsTask();
    }
}
