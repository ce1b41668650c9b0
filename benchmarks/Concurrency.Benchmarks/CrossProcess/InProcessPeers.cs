using System.Globalization;
using Concurrency.Messaging.Grpc;

namespace Concurrency.Benchmarks.CrossProcess;

/// <summary>
/// The smoke option (<c>lab grpc --in-process</c>): the same peers <c>serve</c> starts, our echo
/// <see cref="PeerServer"/>, the Proto.Remote echo actor and the plain echo service, hosted in the experiment's own process on free loopback ports.
/// Quick to start and with no second process to manage, but the server's work then shares the client's process, thread
/// pool and garbage collector, so its numbers are not the published ones (those come from a peer process).
/// </summary>
internal sealed class InProcessPeers : IAsyncDisposable
{
    private static readonly TimeSpan StartLimit = TimeSpan.FromSeconds(60);

    private readonly PeerServer _server;
    private readonly ProtoRemoteEchoServer _protoRemote;
    private readonly PlainEchoServer _plainEcho;

    private InProcessPeers(PeerServer server, ProtoRemoteEchoServer protoRemote, PlainEchoServer plainEcho)
    {
        _server = server;
        _protoRemote = protoRemote;
        _plainEcho = plainEcho;
        Peers = new LabPeers(server.Addresses[0], string.Create(CultureInfo.InvariantCulture, $"{protoRemote.Host}:{protoRemote.Port}"), InProcess: true, PlainEcho: plainEcho.Address);
    }

    /// <summary>Gets where the peers listen.</summary>
    public LabPeers Peers { get; }

    /// <summary>Starts the peers on 127.0.0.1, each on a free port, within a minute.</summary>
    public static async Task<InProcessPeers> StartAsync(CancellationToken cancellationToken)
    {
        using var limit = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        limit.CancelAfter(StartLimit);
        var server = await PeerServer.StartAsync(new PeerServerOptions { Urls = ["http://127.0.0.1:0"] }, limit.Token).ConfigureAwait(false);
        ProtoRemoteEchoServer? protoRemote = null;
        try
        {
            protoRemote = await ProtoRemoteEchoServer.StartAsync("127.0.0.1", 0, limit.Token).ConfigureAwait(false);
            var plainEcho = await PlainEchoServer.StartAsync("http://127.0.0.1:0", limit.Token).ConfigureAwait(false);
            return new InProcessPeers(server, protoRemote, plainEcho);
        }
        catch
        {
            if (protoRemote is not null)
            {
                await protoRemote.DisposeAsync().ConfigureAwait(false);
            }

            await server.DisposeAsync().ConfigureAwait(false);
            throw;
        }
    }

    public async ValueTask DisposeAsync()
    {
        await _plainEcho.DisposeAsync().ConfigureAwait(false);
        await _protoRemote.DisposeAsync().ConfigureAwait(false);
        await _server.DisposeAsync().ConfigureAwait(false);
    }
}
