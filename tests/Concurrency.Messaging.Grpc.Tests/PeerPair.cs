namespace Concurrency.Messaging.Grpc.Tests;

/// <summary>
/// A <see cref="PeerServer"/> on a loopback port the system chose and one <see cref="PeerClient"/> connected to it: the
/// start of most peer tests. Both are started within the test timeout; disposing the pair disposes the client, then the
/// server, as two <c>await using</c> declarations would. Deconstructs into the two, for tests that name them.
/// </summary>
internal sealed class PeerPair : IAsyncDisposable
{
    private PeerPair(PeerServer server, PeerClient client) => (Server, Client) = (server, client);

    public PeerServer Server { get; }

    public PeerClient Client { get; }

    /// <summary>Starts a server with <paramref name="server"/> (the defaults if null) and connects a client with <paramref name="client"/> (<see cref="Messages.Quick"/> if null).</summary>
    public static async Task<PeerPair> StartAsync(PeerServerOptions? server = null, PeerClientOptions? client = null)
    {
        var ct = TestContext.Current.CancellationToken;
        var started = await PeerServer.StartAsync(server ?? new PeerServerOptions(), ct).DefaultTimeout();
        try
        {
            return new PeerPair(started, await PeerClient.ConnectAsync(started.Address.ToString(), client ?? Messages.Quick(), ct).DefaultTimeout());
        }
        catch
        {
            await started.DisposeAsync();
            throw;
        }
    }

    public void Deconstruct(out PeerServer server, out PeerClient client) => (server, client) = (Server, Client);

    public async ValueTask DisposeAsync()
    {
        await Client.DisposeAsync();
        await Server.DisposeAsync();
    }
}
