namespace Concurrency.Benchmarks.Backbone.Lab;

/// <summary>
/// Where the network experiments find their peers: on another machine (<c>lab --server URL --proto-remote HOST:PORT</c>),
/// started there with <c>serve</c>; in the lab's own process (<c>--in-process</c>, the smoke option); or, by default, in a
/// peer process the experiment starts on loopback (the setting for published numbers).
/// </summary>
/// <param name="Server">Our peer server's address, or null.</param>
/// <param name="ProtoRemote">The Proto.Remote echo peer's HOST:PORT, or null.</param>
/// <param name="InProcess">Whether the experiment hosts its peers in its own process instead of starting a peer process.</param>
/// <param name="PlainEcho">The plain grpc-dotnet echo service's address (the yardstick), or null: known only where the
/// experiment started the peers itself.</param>
/// <param name="Replicas">Identity replicas already running (<c>lab replicas --peers URL,URL</c>, started elsewhere with
/// <c>replica</c>), or null for the replicas the experiment starts on loopback.</param>
public sealed record LabPeers(Uri? Server, string? ProtoRemote, bool InProcess = false, Uri? PlainEcho = null, IReadOnlyList<string>? Replicas = null)
{
    /// <summary>No remote peers: the experiment starts a peer process of its own.</summary>
    public static readonly LabPeers None = new(null, null);

    /// <summary>Checks the options; a bad value, or <c>--in-process</c> with a remote peer, is a <see cref="UsageException"/>.</summary>
    public static LabPeers Parse(string? server, string? protoRemote, bool inProcess = false, string? replicas = null)
    {
        string[]? replicaAddresses = replicas?.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);
        if (replicaAddresses is { Length: 0 } || replicaAddresses?.Any(r => !IsHttp(r, out _)) == true)
        {
            throw new UsageException($"lab: --peers needs the replicas' absolute http:// or https:// addresses, comma-separated, not '{replicas}'.");
        }

        if (inProcess && (server is not null || protoRemote is not null))
        {
            throw new UsageException("lab: --in-process hosts the peers in the lab's own process; it cannot be combined with --server or --proto-remote.");
        }

        Uri? address = null;
        if (server is not null && !IsHttp(server, out address))
        {
            throw new UsageException($"lab: --server needs an absolute http:// or https:// address, not '{server}'.");
        }

        if (protoRemote is not null && !TrySplit(protoRemote, out _, out _))
        {
            throw new UsageException($"lab: --proto-remote needs HOST:PORT, not '{protoRemote}'.");
        }

        return new LabPeers(address, protoRemote, inProcess, Replicas: replicaAddresses);
    }

    /// <summary>Splits HOST:PORT.</summary>
    public static bool TrySplit(string endpoint, out string host, out int port)
    {
        var colon = endpoint.LastIndexOf(':');
        host = colon > 0 ? endpoint[..colon] : string.Empty;
        port = 0;
        return colon > 0 && int.TryParse(endpoint.AsSpan(colon + 1), System.Globalization.CultureInfo.InvariantCulture, out port) && port is > 0 and < 65536;
    }

    private static bool IsHttp(string text, out Uri? address) =>
        Uri.TryCreate(text, UriKind.Absolute, out address) && (address.Scheme == Uri.UriSchemeHttp || address.Scheme == Uri.UriSchemeHttps);
}
