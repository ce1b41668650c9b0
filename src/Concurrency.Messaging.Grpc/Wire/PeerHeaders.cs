namespace Concurrency.Messaging.Grpc;

/// <summary>The request headers of the wire contract (see Protos/peer.proto).</summary>
internal static class PeerHeaders
{
    /// <summary>
    /// The session id: issued by the server in its response headers, presented by the client on its later streams, so the
    /// server can de-duplicate resends. Absent, or unknown to the server: a new session and a new id.
    /// </summary>
    public const string Session = "concurrency-peer-session";

    /// <summary>Carries <c>Bearer TOKEN</c>.</summary>
    public const string Authorization = "authorization";

    public const string BearerPrefix = "Bearer ";

    /// <summary>A trailer on a refused stream: <see cref="Permanent"/> when resending the same batches cannot succeed.</summary>
    public const string Refusal = "concurrency-peer-refusal";

    public const string Permanent = "permanent";
}
