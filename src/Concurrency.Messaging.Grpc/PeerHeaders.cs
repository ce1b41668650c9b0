namespace Concurrency.Messaging.Grpc;

/// <summary>The request headers of the wire contract (see Protos/peer.proto).</summary>
internal static class PeerHeaders
{
    /// <summary>The session id: the same across a client's reconnects, so the server can de-duplicate resends. Absent: no de-duplication.</summary>
    public const string Session = "concurrency-peer-session";

    /// <summary>Carries <c>Bearer TOKEN</c>.</summary>
    public const string Authorization = "authorization";

    public const string BearerPrefix = "Bearer ";
}
