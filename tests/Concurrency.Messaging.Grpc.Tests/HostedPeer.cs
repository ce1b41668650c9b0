using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Extensions.Logging;

namespace Concurrency.Messaging.Grpc.Tests;

/// <summary>
/// The peer service in an ASP.NET Core app of the test's own, as a user hosts it: Kestrel on a loopback port the system
/// chose, HTTP/2 only, and no log provider but the test's (no console output). The test adds what it checks to the
/// builder (<see cref="Builder"/>), then <see cref="StartAsync"/> maps the service and starts the app within the test
/// timeout.
/// </summary>
internal static class HostedPeer
{
    /// <summary>A builder for the app, logging into <paramref name="logs"/> if given, and nowhere else.</summary>
    public static WebApplicationBuilder Builder(ILoggerProvider? logs = null)
    {
        var builder = WebApplication.CreateSlimBuilder();
        builder.WebHost.UseUrls("http://127.0.0.1:0");
        builder.WebHost.ConfigureKestrel(kestrel => kestrel.ConfigureEndpointDefaults(endpoint => endpoint.Protocols = HttpProtocols.Http2));
        builder.Logging.ClearProviders(); // the test's choice, not the library's
        if (logs is not null)
        {
            builder.Logging.AddProvider(logs);
        }

        return builder;
    }

    /// <summary>Builds the app, maps the peer service and starts it; the caller stops and disposes it.</summary>
    public static async Task<WebApplication> StartAsync(WebApplicationBuilder builder)
    {
        var app = builder.Build();
        try
        {
            app.MapPeerService();
            await app.StartAsync(TestContext.Current.CancellationToken).DefaultTimeout();
            return app;
        }
        catch
        {
            await app.DisposeAsync();
            throw;
        }
    }

    /// <summary>The address the started app listens on (its server's, with the port the system chose).</summary>
    public static Uri Address(WebApplication app) => new(app.Urls.First());
}
