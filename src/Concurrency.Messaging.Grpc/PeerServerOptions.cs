namespace Concurrency.Messaging.Grpc;

/// <summary>Options for <see cref="PeerServer.StartAsync(PeerServerOptions?, CancellationToken)"/>.</summary>
public sealed record PeerServerOptions
{
    /// <summary>
    /// Gets the addresses to listen on. Defaults to <c>http://127.0.0.1:0</c>: loopback only, HTTP/2 without TLS, a port
    /// the operating system picks (<see cref="PeerServer.Addresses"/> says which). Any other address is the caller's
    /// explicit choice; for one reachable from other machines, set <see cref="CertificatePath"/> and <see cref="BearerToken"/>.
    /// </summary>
    public IReadOnlyList<string> Urls { get; init; } = ["http://127.0.0.1:0"];

    /// <summary>Gets the handler that answers each request. Defaults to <see cref="PeerHandlers.Echo"/>.</summary>
    public PeerHandler Handler { get; init; } = PeerHandlers.Echo;

    /// <summary>
    /// Gets the largest request and the largest reply (<see cref="PeerMessage.WireSize"/>: type, source and payload on the
    /// wire) the server takes and sends. A larger request fails before its handler runs, a larger reply fails its request;
    /// either way only that request fails, with a <see cref="PeerRemoteException"/> at the caller. Defaults to 1 MiB.
    /// </summary>
    public int MaxMessageBytes { get; init; } = 1024 * 1024;

    /// <summary>Gets the most bytes one reply write carries. Defaults to 1 MiB.</summary>
    public int MaxBatchBytes { get; init; } = 1024 * 1024;

    /// <summary>Gets the most replies one write carries. Defaults to 256.</summary>
    public int MaxBatchCount { get; init; } = 256;

    /// <summary>
    /// Gets the token every stream must carry (<c>authorization: Bearer TOKEN</c>); a stream without it ends with gRPC
    /// status <c>Unauthenticated</c>. Null (the default) asks for none. It must not be empty, and is refused with a plain
    /// <c>http://</c> URL off the loopback interface (clients would send it in clear text) unless
    /// <see cref="AllowInsecureCredentials"/> is set.
    /// </summary>
    public string? BearerToken { get; init; }

    /// <summary>
    /// Gets whether <see cref="BearerToken"/> may be asked for on a plain <c>http://</c> URL off the loopback interface,
    /// where clients send it in clear text: only on a network you trust. Defaults to <see langword="false"/>.
    /// </summary>
    public bool AllowInsecureCredentials { get; init; }

    /// <summary>
    /// Gets the path of a certificate file (PKCS#12, .pfx) with its private key. When set, <c>https://</c> URLs serve TLS
    /// with it. Null (the default) serves no TLS.
    /// </summary>
    public string? CertificatePath { get; init; }

    /// <summary>Gets the password of <see cref="CertificatePath"/>, or null if it has none.</summary>
    public string? CertificatePassword { get; init; }

    /// <summary>
    /// Gets how long the server remembers a session (for de-duplicating resends) after its last stream broke without the
    /// client closing it. Defaults to 2 minutes.
    /// </summary>
    public TimeSpan SessionRetention { get; init; } = TimeSpan.FromMinutes(2);

    internal void Validate()
    {
        ArgumentNullException.ThrowIfNull(Urls, nameof(Urls));
        ArgumentNullException.ThrowIfNull(Handler, nameof(Handler));
        PeerCredentials.ValidateToken(BearerToken, nameof(BearerToken));
        if (Urls.Count == 0)
        {
            throw new ArgumentException("At least one URL is needed.", nameof(Urls));
        }

        foreach (var url in Urls)
        {
            if (!Uri.TryCreate(url, UriKind.Absolute, out var uri) || (uri.Scheme != Uri.UriSchemeHttp && uri.Scheme != Uri.UriSchemeHttps))
            {
                throw new ArgumentException($"'{url}' is not an absolute http:// or https:// address.", nameof(Urls));
            }

            if (uri.Scheme == Uri.UriSchemeHttps && CertificatePath is null)
            {
                throw new ArgumentException($"'{url}' asks for TLS but no CertificatePath is set.", nameof(Urls));
            }

            PeerCredentials.RefuseClearText(uri, BearerToken, AllowInsecureCredentials, nameof(Urls));
        }

        if (MaxBatchBytes <= 0 || MaxBatchBytes > PeerClientOptions.WireLimitBytes - 64 * 1024)
        {
            throw new ArgumentOutOfRangeException(nameof(MaxBatchBytes), MaxBatchBytes, "Must be positive and well under gRPC's 4 MiB limit.");
        }

        if (MaxMessageBytes <= 0 || MaxMessageBytes > MaxBatchBytes)
        {
            throw new ArgumentOutOfRangeException(nameof(MaxMessageBytes), MaxMessageBytes, "Must be positive and at most MaxBatchBytes.");
        }

        if (MaxBatchCount <= 0)
        {
            throw new ArgumentOutOfRangeException(nameof(MaxBatchCount), MaxBatchCount, "Must be positive.");
        }

        if (SessionRetention <= TimeSpan.Zero)
        {
            throw new ArgumentOutOfRangeException(nameof(SessionRetention), SessionRetention, "Must be positive.");
        }

        if (CertificatePath is not null && !File.Exists(CertificatePath))
        {
            throw new FileNotFoundException("The certificate file does not exist.", CertificatePath);
        }
    }
}
