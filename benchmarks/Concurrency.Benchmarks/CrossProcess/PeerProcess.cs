using Concurrency.Benchmarks.Backbone.Runs;

namespace Concurrency.Benchmarks.CrossProcess;

/// <summary>
/// The benchmark program started again as <c>serve</c> on loopback: the peers the gRPC experiment measures against, in
/// a process of their own so that the server's work is not the client's.
/// </summary>
internal sealed class PeerProcess : IDisposable
{
    private readonly ServerProcess _server;

    private PeerProcess(ServerProcess server, LabPeers peers)
    {
        _server = server;
        Peers = peers;
    }

    public LabPeers Peers { get; }

    /// <inheritdoc cref="ServerProcess.CpuTime"/>
    public TimeSpan CpuTime => _server.CpuTime;

    /// <summary>Starts the peers: our server on <paramref name="url"/> (default: a free loopback port) and Proto.Remote's on a free port.</summary>
    public static PeerProcess Start(string url = "http://127.0.0.1:0")
    {
        var server = ServerProcess.Start(["serve", "--urls", url, "--proto-remote-port", "0"], "The peer process");
        string? Said(string prefix) => server.Said.FirstOrDefault(line => line.StartsWith(prefix, StringComparison.Ordinal))?[prefix.Length..];
        if (Said(ServeCommand.PeerPrefix) is not { } peer || Said(ServeCommand.ProtoRemotePrefix) is not { } protoRemote || Said(ServeCommand.PlainEchoPrefix) is not { } plainEcho)
        {
            server.Dispose();
            throw new InvalidOperationException($"The peer process did not say where it listens: {string.Join(" / ", server.Said)}");
        }

        return new PeerProcess(server, new LabPeers(new Uri(peer), protoRemote, PlainEcho: new Uri(plainEcho)));
    }

    /// <inheritdoc cref="ServerProcess.Kill"/>
    public void Kill() => _server.Kill();

    public void Dispose() => _server.Dispose();
}
