using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;

namespace Concurrency.Messaging.Grpc;

/// <summary>
/// Refuses to let the app run with a bearer token on a plain <c>http://</c> address off the loopback interface, where
/// clients would send the token (and their session id) in clear text. Hosted, the app's server binds what the app says,
/// not <see cref="PeerServerOptions.Urls"/>, so the check reads the addresses the server reports once every hosted
/// service has started (Kestrel binds in its own start), and fails the app's start with the reason.
/// </summary>
internal sealed class PeerEndpointCheck(IServiceProvider services) : IHostedLifecycleService
{
    public Task StartedAsync(CancellationToken cancellationToken)
    {
        // No server (a host without one, as in some tests) or one that reports no addresses: nothing listens to check.
        var addresses = services.GetService<IServer>()?.Features.Get<IServerAddressesFeature>()?.Addresses;
        if (addresses is not null)
        {
            try
            {
                Check(addresses, services.GetRequiredService<PeerServerState>().Options);
            }
            catch (InvalidOperationException)
            {
                // The host's start fails with this exception; its server is listening already, so the app is stopped too.
                services.GetRequiredService<IHostApplicationLifetime>().StopApplication();
                throw;
            }
        }

        return Task.CompletedTask;
    }

    /// <summary>Throws when <paramref name="addresses"/> would carry the options' token in clear text off this machine.</summary>
    /// <exception cref="InvalidOperationException">An address is plain http:// off loopback, with a token and without <see cref="PeerServerOptions.AllowInsecureCredentials"/>.</exception>
    public static void Check(IEnumerable<string> addresses, PeerServerOptions options)
    {
        foreach (var address in addresses)
        {
            if (!address.StartsWith("http://", StringComparison.OrdinalIgnoreCase))
            {
                continue; // https://, or not a network address at all
            }

            // Kestrel reports a Unix socket or a named pipe as http://unix:/path or http://pipe:/name: neither leaves the
            // machine. An address Uri cannot read (a wildcard such as http://+:80) is taken for one off loopback.
            var parsed = Uri.TryCreate(address, UriKind.Absolute, out var uri);
            if (parsed && uri!.Host is "unix" or "pipe")
            {
                continue;
            }

            try
            {
                PeerCredentials.RefuseClearText(parsed ? uri! : new Uri("http://0.0.0.0/"), options.AnyToken, options.AllowInsecureCredentials, nameof(addresses));
            }
            catch (ArgumentException clearText)
            {
                throw new InvalidOperationException(
                    $"The peer service asks for a bearer token, and the app's server listens on '{address}': {clearText.Message}",
                    clearText);
            }
        }
    }

    public Task StartingAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    public Task StartAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    public Task StoppingAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    public Task StopAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    public Task StoppedAsync(CancellationToken cancellationToken) => Task.CompletedTask;
}
