using Grpc.Core;

namespace Concurrency.Messaging.Grpc;

/// <summary>How a <see cref="PeerClient"/> reads a broken stream's error: which failures no reconnect can fix, and how an error is quoted.</summary>
internal static class StreamFailures
{
    public static string Describe(Exception? error) => error is null ? string.Empty : $" (last error: {error.Message})";

    public static PeerDeliveryException? Permanent(Exception? error, Uri address)
    {
        if (Untrusted(error) is { } untrusted)
        {
            return new PeerDeliveryException(
                PeerDeliveryFailure.UntrustedCertificate,
                $"The TLS certificate of the server at {address} is not trusted: {untrusted.Message} Trust it through the system's authorities, or pin it with PeerClientOptions.TrustedServerCertificate.",
                error);
        }

        if (error is RpcException refused && refused.Trailers.GetValue(PeerHeaders.Refusal) == PeerHeaders.Permanent)
        {
            return new PeerDeliveryException(PeerDeliveryFailure.Refused, $"The server at {address} refused this client's stream for good: {refused.Status.Detail}", refused);
        }

        return error is RpcException rpc
            ? rpc.StatusCode switch
            {
                StatusCode.Unauthenticated or StatusCode.PermissionDenied => new PeerDeliveryException(
                    PeerDeliveryFailure.Unauthenticated, $"The server at {address} refused this client's credentials: {rpc.Status.Detail}", rpc),
                StatusCode.Unimplemented => new PeerDeliveryException(
                    PeerDeliveryFailure.Unsupported, $"The server at {address} does not serve the peer protocol: {rpc.Status.Detail}", rpc),
                _ => null,
            }
            : null;
    }

    // The TLS handshake's refusal of the server's certificate, wherever gRPC and HTTP wrapped it: no retry fixes it.
    private static System.Security.Authentication.AuthenticationException? Untrusted(Exception? error)
    {
        for (var depth = 0; error is not null && depth < 8; depth++)
        {
            if (error is System.Security.Authentication.AuthenticationException authentication)
            {
                return authentication;
            }

            error = error is RpcException { Status.DebugException: { } debug } && error.InnerException is null ? debug : error.InnerException;
        }

        return null;
    }
}
