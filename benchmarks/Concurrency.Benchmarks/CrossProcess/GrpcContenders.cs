using Concurrency.Messaging.Grpc;

namespace Concurrency.Benchmarks.CrossProcess;

/// <summary>
/// Where a gRPC contender sends: our peer server, and where there is one, the Proto.Remote echo peer, the plain
/// grpc-dotnet echo service and a NATS server (nats://HOST:PORT).
/// </summary>
internal sealed record GrpcTarget(Uri Server, string? ProtoRemote, Uri? PlainEcho = null, string? Nats = null);

/// <summary>
/// How the gRPC game runs a contender: <paramref name="messages"/> messages of <paramref name="payload"/> bytes from
/// <paramref name="senders"/> concurrent senders (where the contender has senders), every reply checked.
/// </summary>
internal delegate Task<PeerRunResult> GrpcBuild(GrpcTarget target, int senders, int payload, int messages, CancellationToken cancellation);

/// <summary>
/// The gRPC game's contenders, across processes on loopback: our <c>PeerClient</c> in its three modes (buffer 256), the
/// generated client on one stream (a message per write, or hand-made batches), the plain grpc-dotnet echo service (the
/// yardstick the end-to-end goal divides by), and two peers: Proto.Remote's echo actor (only where
/// <see cref="GrpcTarget.ProtoRemote"/> names one: <see cref="NeedsProtoRemote"/>) and NATS request/reply (only where
/// <see cref="GrpcTarget.Nats"/> names a server).
/// </summary>
internal static class GrpcContenders
{
    /// <summary>The pump's buffer size in the contenders of our client.</summary>
    public const int Buffer = 256;

    /// <summary>Our client's contenders, one per mode: their names in the registry (the latency command builds them its own way).</summary>
    /// <remarks>Declared before <see cref="Registry"/>, which is built from it: static initializers run in text order.</remarks>
    public static IReadOnlyList<(string Name, PeerMode Mode)> Pumps { get; } =
    [
        ("PeerClient, sync", PeerMode.Sync),
        ("PeerClient, async", PeerMode.Async),
        ("PeerClient, in order", PeerMode.InOrder),
    ];

    /// <summary>The yardstick's name: the plain echo service, batches of 256.</summary>
    public const string PlainEcho256 = "plain grpc-dotnet echo, batches of 256";

    /// <summary>The NATS contender's name.</summary>
    public const string NatsRequest = "NATS.Net request/reply";

    public static ContenderRegistry<GrpcBuild> Registry { get; } = new("gRPC",
    [
        .. Pumps.Select(p => Pump(p.Name, p.Mode)),
        Raw("generated client, a message per write", 1),
        Raw("generated client, batches of 16", 16),
        Raw("generated client, batches of 256", 256),
        new(PlainEcho256, ContenderFamily.Baseline, (target, _, payload, messages, cancellation) => PeerRuns.PlainEchoAsync(
            target.PlainEcho ?? throw new InvalidOperationException($"{PlainEcho256} needs the plain echo service (the lab's own peer process starts one)."),
            256,
            payload,
            messages,
            cancellation))
        {
            Note = "a plain grpc-dotnet service that writes each batch of 256 envelopes back whole, one stream, a reader counting replies",
        },
        ProtoRemote("Proto.Remote RequestAsync", ProtoRemoteSendMode.Request),
        ProtoRemote("Proto.Remote Tell", ProtoRemoteSendMode.Tell),
        new(NatsRequest, ContenderFamily.Peer, (target, senders, payload, messages, cancellation) => NatsRuns.RequestReplyAsync(
            target.Nats ?? throw new InvalidOperationException($"{NatsRequest} needs a nats-server ({NatsServer.InstallHint})."),
            senders,
            payload,
            messages,
            cancellation))
        {
            Note = "NATS.Net 3.3.2 against a local nats-server: each sender awaits its request's reply from a subscriber that echoes",
        },
    ]);

    /// <summary>Whether the contender needs a Proto.Remote peer to run.</summary>
    public static bool NeedsProtoRemote(Contender<GrpcBuild> contender)
    {
        ArgumentNullException.ThrowIfNull(contender);
        return contender.Name.StartsWith("Proto.Remote", StringComparison.Ordinal);
    }

    private static Contender<GrpcBuild> Pump(string name, PeerMode mode)
        => new(name, ContenderFamily.Ours, (target, senders, payload, messages, cancellation) => PeerRuns.PumpAsync(target.Server, mode, Buffer, payload, senders, messages, cancellation))
        {
            Note = $"{mode} mode, buffer {Buffer}, each sender awaiting its reply",
        };

    private static Contender<GrpcBuild> Raw(string name, int perWrite)
        => new(name, ContenderFamily.Baseline, (target, _, payload, messages, cancellation) => PeerRuns.RawAsync(target.Server, perWrite, payload, messages, cancellation))
        {
            Note = $"the client generated from peer.proto, {perWrite} envelope(s) per write on one stream, a reader counting replies",
        };

    private static Contender<GrpcBuild> ProtoRemote(string name, ProtoRemoteSendMode mode)
        => new(name, ContenderFamily.Peer, (target, senders, payload, messages, cancellation) => PeerRuns.ProtoRemoteAsync(
            target.ProtoRemote ?? throw new InvalidOperationException($"{name} needs a Proto.Remote peer (--proto-remote HOST:PORT, or the lab's own peer process)."),
            mode,
            senders,
            payload,
            messages,
            cancellation))
        {
            Note = "Proto.Remote 1.8.0 to its echo actor",
        };
}
