using System.Net.Security;
using System.Security.Cryptography;
using Grpc.Net.Client;

namespace Concurrency.Messaging.Grpc;

/// <summary>The HTTP/2 channel a <see cref="PeerClient"/> opens its streams on, with the keep-alive and the certificate pinning of its options.</summary>
internal static class PeerChannel
{
    public static GrpcChannel Create(Uri address, PeerClientOptions options) => GrpcChannel.ForAddress(address, new GrpcChannelOptions
    {
        HttpHandler = CreateHandler(options),
        MaxReceiveMessageSize = PeerClientOptions.WireLimitBytes,
        MaxSendMessageSize = PeerClientOptions.WireLimitBytes,
        DisposeHttpClient = true,
    });

    private static SocketsHttpHandler CreateHandler(PeerClientOptions options)
    {
        var handler = new SocketsHttpHandler
        {
            ConnectTimeout = options.ConnectTimeout,
            PooledConnectionIdleTimeout = Timeout.InfiniteTimeSpan,
            EnableMultipleHttp2Connections = false,

            // HTTP/2 pings catch a dead connection under the stream too (the handler allows no less than a second); the
            // heartbeat remains the check that the peer itself answers.
            KeepAlivePingDelay = Max(options.HeartbeatInterval, TimeSpan.FromSeconds(1)),
            KeepAlivePingTimeout = Max(options.ReadIdleTimeout, TimeSpan.FromSeconds(1)),
            KeepAlivePingPolicy = HttpKeepAlivePingPolicy.WithActiveRequests,
        };
        if (options.TrustedServerCertificate is { } trusted)
        {
            var pinned = trusted.GetCertHash(HashAlgorithmName.SHA256);
            handler.SslOptions.RemoteCertificateValidationCallback = (_, certificate, _, errors) =>
                errors == SslPolicyErrors.None
                || (certificate is not null && CryptographicOperations.FixedTimeEquals(certificate.GetCertHash(HashAlgorithmName.SHA256), pinned));
        }

        return handler;
    }

    private static TimeSpan Max(TimeSpan a, TimeSpan b) => a > b ? a : b;
}
