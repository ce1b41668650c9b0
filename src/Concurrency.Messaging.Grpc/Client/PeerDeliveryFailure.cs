namespace Concurrency.Messaging.Grpc;

/// <summary>Why a <see cref="PeerClient"/> failed a send back to its caller.</summary>
public enum PeerDeliveryFailure
{
    /// <summary>No reply came within <see cref="PeerClientOptions.DeliveryTimeout"/> (the server was unreachable, or slow).</summary>
    Timeout,

    /// <summary>The message was written <see cref="PeerClientOptions.MaxResends"/> + 1 times, each time on a stream that broke before its reply.</summary>
    ResendsExhausted,

    /// <summary>The server refused the client's credentials (gRPC status <c>Unauthenticated</c> or <c>PermissionDenied</c>); the client stops.</summary>
    Unauthenticated,

    /// <summary>The server does not speak this protocol (gRPC status <c>Unimplemented</c>); the client stops.</summary>
    Unsupported,

    /// <summary>The client was completed or disposed before the message got its reply.</summary>
    Closed,

    /// <summary>
    /// The message was written again after a reconnect, and the server had handled it but no longer remembered its reply
    /// (its memory for replies not yet acknowledged is bounded): the request ran, its reply is lost. Reported at once.
    /// </summary>
    Forgotten,

    /// <summary>The server's TLS certificate is not trusted (no authority vouches for it and it is not the pinned one); the client stops.</summary>
    UntrustedCertificate,

    /// <summary>
    /// The server refused the stream for good: a batch over its limits (<see cref="PeerServerOptions.MaxRequestBatchCount"/>,
    /// gRPC's 4 MiB) or a sequence number far past the session's (<see cref="PeerServerOptions.MaxSequenceGap"/>). Resending
    /// the same batches cannot succeed, so the client stops.
    /// </summary>
    Refused,
}
