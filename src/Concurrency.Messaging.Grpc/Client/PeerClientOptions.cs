using System.Security.Cryptography.X509Certificates;

namespace Concurrency.Messaging.Grpc;

/// <summary>Options for <see cref="PeerClient.Create(string, PeerClientOptions?)"/>.</summary>
public sealed record PeerClientOptions
{
    /// <summary>The largest batch the client writes and the largest it reads: 4 MiB, gRPC's default message limit.</summary>
    public const int WireLimitBytes = 4 * 1024 * 1024;

    /// <summary>Gets how the client sends and hands back replies. Defaults to <see cref="PeerMode.Async"/>.</summary>
    public PeerMode Mode { get; init; } = PeerMode.Async;

    /// <summary>
    /// Gets the capacity of the buffer between callers and the pump, in messages: a send waits while it is full (the
    /// back-pressure). Defaults to 256.
    /// </summary>
    public int BufferSize { get; init; } = 256;

    /// <summary>Gets the most messages one write carries (async and in-order modes). Defaults to 256.</summary>
    public int MaxBatchCount { get; init; } = 256;

    /// <summary>
    /// Gets the most bytes one write carries, well under gRPC's 4 MiB limit. A batch is closed before a message that
    /// would take it over. Defaults to 1 MiB.
    /// </summary>
    public int MaxBatchBytes { get; init; } = 1024 * 1024;

    /// <summary>
    /// Gets the largest message (type, source and payload on the wire) a send accepts; a larger one is refused with a
    /// <see cref="PeerMessageTooLargeException"/> before it is written. At most <see cref="MaxBatchBytes"/>. Defaults to 1 MiB.
    /// </summary>
    public int MaxMessageBytes { get; init; } = 1024 * 1024;

    /// <summary>
    /// Gets how long a send may wait for its reply, counted from the call, through any reconnects, before it fails with
    /// <see cref="PeerDeliveryFailure.Timeout"/>. Defaults to 30 seconds.
    /// </summary>
    public TimeSpan DeliveryTimeout { get; init; } = TimeSpan.FromSeconds(30);

    /// <summary>
    /// Gets how many times a message is written again on a new stream after the stream it was written on broke before its
    /// reply; past that it fails with <see cref="PeerDeliveryFailure.ResendsExhausted"/>. Defaults to 5.
    /// </summary>
    public int MaxResends { get; init; } = 5;

    /// <summary>Gets how long one attempt to open a stream may take (connect, TLS, the server's response headers). Defaults to 5 seconds.</summary>
    public TimeSpan ConnectTimeout { get; init; } = TimeSpan.FromSeconds(5);

    /// <summary>Gets the first wait before reconnecting after a stream broke; it doubles up to <see cref="MaxReconnectDelay"/>. Defaults to 50 ms.</summary>
    public TimeSpan ReconnectDelay { get; init; } = TimeSpan.FromMilliseconds(50);

    /// <summary>Gets the longest wait between reconnect attempts. Defaults to 2 seconds.</summary>
    public TimeSpan MaxReconnectDelay { get; init; } = TimeSpan.FromSeconds(2);

    /// <summary>
    /// Gets how long the client goes without reading anything before it asks the server "are you there?" (an empty
    /// heartbeat batch the server answers at once). Defaults to 5 seconds.
    /// </summary>
    public TimeSpan HeartbeatInterval { get; init; } = TimeSpan.FromSeconds(5);

    /// <summary>
    /// Gets how long the client goes without reading anything, heartbeats included, before it treats the stream as
    /// half-open (the server machine gone, the read never returning), drops it and reconnects. At least twice
    /// <see cref="HeartbeatInterval"/>. Defaults to 15 seconds.
    /// </summary>
    public TimeSpan ReadIdleTimeout { get; init; } = TimeSpan.FromSeconds(15);

    /// <summary>
    /// Gets a bearer token sent with every stream (header <c>authorization: Bearer TOKEN</c>), or null for none. It must not
    /// be empty. It is refused over plain <c>http://</c> to an address off the loopback interface (it would cross the
    /// network in clear text) unless <see cref="AllowInsecureCredentials"/> is set.
    /// </summary>
    public string? BearerToken { get; init; }

    /// <summary>
    /// Gets whether <see cref="BearerToken"/> may be sent over plain <c>http://</c> to an address off the loopback interface,
    /// in clear text: only on a network you trust. Defaults to <see langword="false"/>.
    /// </summary>
    public bool AllowInsecureCredentials { get; init; }

    /// <summary>
    /// Gets a certificate to trust for an <c>https://</c> server even if no authority vouches for it (a self-signed
    /// peer): the server's certificate is accepted when it is this one (same thumbprint). Null trusts the system's authorities only.
    /// </summary>
    public X509Certificate2? TrustedServerCertificate { get; init; }

    internal void Validate()
    {
        if (!Enum.IsDefined(Mode))
        {
            throw new ArgumentOutOfRangeException(nameof(Mode), Mode, "Not a PeerMode.");
        }

        PeerCredentials.ValidateToken(BearerToken, nameof(BearerToken));
        Positive(BufferSize, nameof(BufferSize));
        Positive(MaxBatchCount, nameof(MaxBatchCount));
        if (MaxBatchBytes <= 0 || MaxBatchBytes > WireLimitBytes - 64 * 1024)
        {
            throw new ArgumentOutOfRangeException(nameof(MaxBatchBytes), MaxBatchBytes, $"Must be positive and at most {WireLimitBytes - 64 * 1024:N0} (gRPC's 4 MiB limit less room for the batch's own fields).");
        }

        if (MaxMessageBytes <= 0 || MaxMessageBytes > MaxBatchBytes)
        {
            throw new ArgumentOutOfRangeException(nameof(MaxMessageBytes), MaxMessageBytes, "Must be positive and at most MaxBatchBytes.");
        }

        if (MaxResends < 0)
        {
            throw new ArgumentOutOfRangeException(nameof(MaxResends), MaxResends, "Must not be negative.");
        }

        Positive(DeliveryTimeout, nameof(DeliveryTimeout));
        Positive(ConnectTimeout, nameof(ConnectTimeout));
        Positive(ReconnectDelay, nameof(ReconnectDelay));
        Positive(HeartbeatInterval, nameof(HeartbeatInterval));
        if (MaxReconnectDelay < ReconnectDelay)
        {
            throw new ArgumentOutOfRangeException(nameof(MaxReconnectDelay), MaxReconnectDelay, "Must be at least ReconnectDelay.");
        }

        if (ReadIdleTimeout < 2 * HeartbeatInterval)
        {
            throw new ArgumentOutOfRangeException(nameof(ReadIdleTimeout), ReadIdleTimeout, "Must be at least twice HeartbeatInterval, so that one heartbeat can be lost or late.");
        }
    }

    private static void Positive(int value, string name)
    {
        if (value <= 0)
        {
            throw new ArgumentOutOfRangeException(name, value, "Must be positive.");
        }
    }

    /// <summary>The check of every time option in the package: positive and finite.</summary>
    internal static void Positive(TimeSpan value, string name)
    {
        if (value <= TimeSpan.Zero || value == Timeout.InfiniteTimeSpan)
        {
            throw new ArgumentOutOfRangeException(name, value, "Must be a positive, finite time.");
        }
    }
}
