using Concurrency.Benchmarks.CrossProcess.PlainEcho;
using Grpc.Core;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;

namespace Concurrency.Benchmarks.CrossProcess;

/// <summary>
/// The yardstick the end-to-end goal divides by: a plain grpc-dotnet service, on Kestrel over HTTP/2 as our
/// <c>PeerServer</c> is, that writes every batch it reads back whole. What gRPC itself costs, with none of our work
/// (handler dispatch, reply assembly, sessions) on top.
/// </summary>
internal sealed class PlainEchoServer : IAsyncDisposable
{
    private readonly WebApplication _app;

    private PlainEchoServer(WebApplication app, Uri address)
    {
        _app = app;
        Address = address;
    }

    /// <summary>Gets where the service listens.</summary>
    public Uri Address { get; }

    /// <summary>Starts the service on <paramref name="url"/> (<c>http://127.0.0.1:0</c>: a free loopback port).</summary>
    public static async Task<PlainEchoServer> StartAsync(string url, CancellationToken cancellationToken)
    {
        var builder = WebApplication.CreateSlimBuilder();
        builder.Logging.ClearProviders();
        builder.WebHost.UseUrls(url);
        builder.WebHost.ConfigureKestrel(kestrel => kestrel.ConfigureEndpointDefaults(endpoint => endpoint.Protocols = HttpProtocols.Http2));
        builder.Services.AddGrpc(grpc =>
        {
            grpc.MaxReceiveMessageSize = null;
            grpc.MaxSendMessageSize = null;
        });
        var app = builder.Build();
        app.MapGrpcService<EchoService>();
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
        return new PlainEchoServer(app, new Uri(bound.First()));
    }

    public async ValueTask DisposeAsync()
    {
        await _app.StopAsync().ConfigureAwait(false);
        await _app.DisposeAsync().ConfigureAwait(false);
    }

    private sealed class EchoService : Echo.EchoBase
    {
        public override async Task Exchange(IAsyncStreamReader<EchoBatch> requestStream, IServerStreamWriter<EchoBatch> responseStream, ServerCallContext context)
        {
            await foreach (var batch in requestStream.ReadAllAsync(context.CancellationToken).ConfigureAwait(false))
            {
                await responseStream.WriteAsync(batch, context.CancellationToken).ConfigureAwait(false);
            }
        }
    }
}
