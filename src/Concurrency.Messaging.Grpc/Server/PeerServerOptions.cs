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
    /// Gets whether a caller whose request made the handler throw is told the exception's type and message. Off (the
    /// default), the caller gets only that the handler failed on its request's type: an exception's message may carry
    /// what the server's owner keeps from its clients (paths, connection strings, other users' data), and the
    /// exception goes to the server's log at <c>Debug</c> instead. Turn it on where every client is trusted, as
    /// grpc-dotnet's <c>EnableDetailedErrors</c>.
    /// </summary>
    public bool EnableDetailedErrors { get; init; }

    /// <summary>
    /// Gets the logger factory a <see cref="PeerServer"/> logs through: its refusals of streams and requests, the life of
    /// its streams, and what Kestrel and gRPC log for it. Null (the default) logs nothing. The server neither filters
    /// nor disposes it: its own filters decide what is written, and its owner disposes it after the server. Hosted
    /// with <see cref="PeerHosting"/>, the service logs through the app's logging and this is not used.
    /// </summary>
    public Microsoft.Extensions.Logging.ILoggerFactory? LoggerFactory { get; init; }

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
    /// <see cref="AllowInsecureCredentials"/> is set; hosted, on such an address the app's server reports once started.
    /// </summary>
    public string? BearerToken { get; init; }

    /// <summary>
    /// Gets the tokens the server accepts, each mapped to the identity of the clients that carry it (a name the server
    /// uses for its per-identity limits and to bind sessions; it is never sent). An alternative to <see cref="BearerToken"/>
    /// (setting both is invalid), with the same rules for each token. With more than one identity, each is held to its
    /// share of the server's streams and sessions (<see cref="MaxStreamsPerIdentity"/>, <see cref="MaxSessionsPerIdentity"/>),
    /// and a session is attached only by a stream of the identity that opened it. Null (the default) uses
    /// <see cref="BearerToken"/>; with either of those every stream has one identity.
    /// </summary>
    public IReadOnlyDictionary<string, string>? BearerTokens { get; init; }

    /// <summary>
    /// Gets whether <see cref="BearerToken"/> (or <see cref="BearerTokens"/>) may be asked for on a plain <c>http://</c> URL
    /// off the loopback interface, where clients send it in clear text: only on a network you trust. Defaults to
    /// <see langword="false"/>.
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
    /// client closing it; such sessions are swept on a timer. Defaults to 2 minutes.
    /// </summary>
    public TimeSpan SessionRetention { get; init; } = TimeSpan.FromMinutes(2);

    /// <summary>
    /// Gets the most sessions the server remembers. At the bound an idle session is forgotten for a new one: first one that
    /// never acknowledged a reply, then one whose replies are all acknowledged, last one with replies not yet acknowledged
    /// (the one idle longest first within each); with every session in use a new stream ends with gRPC status
    /// <c>ResourceExhausted</c>. Defaults to 10,000.
    /// </summary>
    public int MaxSessions { get; init; } = 10_000;

    /// <summary>
    /// Gets the most replies one session remembers for resends until its client acknowledges them; past it the oldest is
    /// forgotten, and a resend of its request is answered "forgotten" (the caller gets <see cref="PeerDeliveryFailure.Forgotten"/>
    /// at once, never a timeout). Defaults to 65,536.
    /// </summary>
    public int MaxRememberedPerSession { get; init; } = 65_536;

    /// <summary>Gets the most bytes of replies one session remembers, as <see cref="MaxRememberedPerSession"/> does, counted as allocated. Defaults to 16 MiB.</summary>
    public long MaxRememberedBytesPerSession { get; init; } = 16L * 1024 * 1024;

    /// <summary>
    /// Gets the most bytes of replies all sessions together remember, as <see cref="MaxRememberedPerSession"/> does, counted
    /// as allocated (the sessions' arrays at their capacity and the strings they keep). Defaults to 256 MiB.
    /// </summary>
    public long MaxRememberedBytes { get; init; } = 256L * 1024 * 1024;

    /// <summary>
    /// Gets the most requests one batch from a client may carry; a larger batch ends its stream with gRPC status
    /// <c>ResourceExhausted</c>. Defaults to 1,024 (a <see cref="PeerClient"/> writes at most its
    /// <see cref="PeerClientOptions.MaxBatchCount"/>, 256 by default).
    /// </summary>
    public int MaxRequestBatchCount { get; init; } = 1024;

    /// <summary>
    /// Gets the most request batches one stream queues while its handler is behind, and the most reply batches it queues
    /// while its client reads slowly. Past them the server stops reading the stream, and HTTP/2 flow control holds the
    /// client back; heartbeats go on, so the client does not take the stream for half-open. Defaults to 4.
    /// </summary>
    /// <remarks>
    /// <para>
    /// What the server holds is thus bounded. One stream holds at most (this + 2) request batches of gRPC's 4 MiB, each up
    /// to 8 MiB once read (strings widen to UTF-16) plus 256 bytes of objects per request (<see cref="MaxRequestBatchCount"/>),
    /// plus 4 MiB of the one being read; and (this + 3) reply batches of
    /// <see cref="MaxBatchBytes"/> (a single reply up to twice <see cref="MaxMessageBytes"/>) plus 256 bytes of objects per
    /// reply (<see cref="MaxBatchCount"/>): the replies to one request batch are queued as they are made, so a handler
    /// that answers 1,024 requests with 1 MiB each is held back after a few. The server holds <see cref="MaxStreams"/> times
    /// that, plus <see cref="MaxRememberedBytes"/> (counted as allocated), plus about 1 KiB per session
    /// (<see cref="MaxSessions"/>), plus Kestrel's buffers per connection at its defaults (about 1.1 MiB:
    /// a 1 MiB receive window, 64 KiB of response buffer, 36 KiB of headers; <see cref="MaxConnections"/>).
    /// </para>
    /// <para>
    /// With the defaults that is 53.5 MiB + 14.4 MiB a stream, about 66.3 GiB for 1,000 streams, and 1.3 GiB more: about
    /// 68 GiB, nearly all of it every stream flooding with batches of 4 MiB of strings at once. Lower
    /// <see cref="MaxStreams"/> (or this) for a machine with less memory: 100 streams hold about 8 GiB. docs/grpc.md
    /// ("Worst-case memory") states the formula term by term.
    /// </para>
    /// </remarks>
    public int MaxQueuedBatches { get; init; } = 4;

    /// <summary>
    /// Gets the most streams the server has open at once, over all connections; a stream past it ends at once with gRPC
    /// status <c>ResourceExhausted</c> (the client retries), unless a stream idle past <see cref="StreamIdleTimeout"/>
    /// gives way to it. Defaults to 1,000.
    /// </summary>
    public int MaxStreams { get; init; } = 1000;

    /// <summary>
    /// Gets the most streams the clients of one identity (see <see cref="BearerTokens"/>) have open at once; a stream past it
    /// ends at once with gRPC status <c>ResourceExhausted</c>, after the identity's stream idle longest past
    /// <see cref="StreamIdleTimeout"/>, if any, was ended to make room. Null (the default): <see cref="MaxStreams"/> divided
    /// by the number of identities, but never less than a quarter of it; with one identity, no cap beyond
    /// <see cref="MaxStreams"/>.
    /// </summary>
    public int? MaxStreamsPerIdentity { get; init; }

    /// <summary>
    /// Gets the most sessions the server remembers for the clients of one identity (see <see cref="BearerTokens"/>); an
    /// identity at it has its own idle sessions forgotten first (in the order <see cref="MaxSessions"/> describes). Null (the
    /// default): <see cref="MaxSessions"/> divided by the number of identities, but never less than a quarter of it; with
    /// one identity, no cap beyond <see cref="MaxSessions"/>.
    /// </summary>
    public int? MaxSessionsPerIdentity { get; init; }

    /// <summary>
    /// Gets how long a stream may bring no request and no new acknowledgement (heartbeats do not count) before it gives way:
    /// when a new stream finds the server, or its identity, at its most streams, the stream idle longest past this, with no
    /// request of its own still being handled, is ended with gRPC status <c>Unavailable</c> (a <see cref="PeerClient"/>
    /// reconnects, its session intact) and the new stream takes its place. Thus a client holding idle streams keeps a new
    /// client out for at most this, plus the new client's retry delay. Defaults to 30 seconds.
    /// </summary>
    public TimeSpan StreamIdleTimeout { get; init; } = TimeSpan.FromSeconds(30);

    /// <summary>
    /// Gets how far past the highest sequence number a session has seen a request may be: one further is refused (its
    /// stream ends with gRPC status <c>OutOfRange</c>) rather than taken as the new high-water mark, which would make every
    /// later request of the session look like a duplicate. The numbers a session passes over in all (a client numbers a
    /// send it then drops, cancelled or timed out before its write) may be at most this plus the numbers it sent, so that
    /// the mark cannot be walked far ahead in steps of this either. Defaults to 1,048,576.
    /// </summary>
    public long MaxSequenceGap { get; init; } = 1L << 20;

    /// <summary>Gets the most streams one HTTP/2 connection may have open at once (Kestrel's limit, set). Defaults to 16.</summary>
    public int MaxStreamsPerConnection { get; init; } = 16;

    /// <summary>Gets the most connections the server keeps open at once (Kestrel's limit, set). Defaults to 1,000.</summary>
    public int MaxConnections { get; init; } = 1000;

    /// <summary>
    /// Gets the server's name in its metrics: every measurement of its instruments carries it as the tag
    /// <c>concurrency.peer.server.name</c>, so that two servers in one process (or two apps exporting the same meter name)
    /// are told apart (docs/metrics.md). Null (the default) names it <c>peer-server-N</c>, N counting the servers this
    /// process made. Keep it short and fixed (a role, not a per-request value): it is an attribute of every time series.
    /// </summary>
    public string? Name { get; init; }

    /// <summary>
    /// Gets how long one write of replies to a client may take before its stream ends: a client that stops reading its
    /// replies would otherwise hold the write, its stream and its connection forever. The stream is reset (the client
    /// reconnects and resends; the replies stay remembered in its session) and its slot in <see cref="MaxStreams"/> is
    /// given back. The deadline is per write of at most <see cref="MaxBatchBytes"/>, not per stream: a client reading
    /// slowly but steadily, at least <see cref="MaxBatchBytes"/> per this time, is never cut. Defaults to 30 seconds.
    /// </summary>
    public TimeSpan WriteTimeout { get; init; } = TimeSpan.FromSeconds(30);

    /// <summary>
    /// Gets how long a stream may go without sending a batch, or being sent a reply, while the server waits to read from
    /// it: past it the stream ends with gRPC status <c>Unavailable</c> (the client reconnects; its session and remembered replies stay), so that idle streams
    /// do not hold <see cref="MaxStreams"/>. A <see cref="PeerClient"/> with nothing to send writes a heartbeat every
    /// <see cref="PeerClientOptions.HeartbeatInterval"/> (5 seconds by default), which must stay well under this. The
    /// time the server itself stops reading (see <see cref="MaxQueuedBatches"/>) does not count. Defaults to 30 seconds.
    /// </summary>
    /// <remarks>
    /// With the defaults, a stream that sends nothing holds its slot for at most 30 seconds, and its connection, left with
    /// no stream, is closed after <see cref="ConnectionIdleTimeout"/>: a minute in all.
    /// </remarks>
    public TimeSpan ReadIdleTimeout { get; init; } = TimeSpan.FromSeconds(30);

    /// <summary>
    /// Gets how long a connection may stay open with no stream on it, including a new connection that sends nothing or
    /// only its HTTP/2 preface: past it Kestrel closes the connection, so that idle connections do not hold
    /// <see cref="MaxConnections"/>. It is Kestrel's <c>KeepAliveTimeout</c> (which bounds a silent HTTP/2 connection
    /// from its start), and <c>RequestHeadersTimeout</c> too, set by <see cref="PeerHosting.UsePeerServerLimits"/>. Kestrel
    /// checks once a second, so a connection may stay up to a second longer. Defaults to 30 seconds.
    /// </summary>
    public TimeSpan ConnectionIdleTimeout { get; init; } = TimeSpan.FromSeconds(30);

    /// <summary>How often a stream whose reading is paused (see <see cref="MaxQueuedBatches"/>) writes a heartbeat.</summary>
    internal TimeSpan PausedHeartbeatInterval { get; init; } = TimeSpan.FromSeconds(1);

    /// <summary>The clock that spaces the warnings for refused streams, measures streams' idleness and times <see cref="WriteTimeout"/> and <see cref="ReadIdleTimeout"/> (a fake one in tests).</summary>
    internal TimeProvider TimeProvider { get; init; } = TimeProvider.System;

    /// <summary>A token the server asks for (<see cref="BearerToken"/> or one of <see cref="BearerTokens"/>), or null: what the clear-text rule looks at.</summary>
    internal string? AnyToken => BearerToken ?? BearerTokens?.Keys.FirstOrDefault();

    internal void Validate()
    {
        ArgumentNullException.ThrowIfNull(Urls, nameof(Urls));
        ArgumentNullException.ThrowIfNull(Handler, nameof(Handler));
        PeerCredentials.ValidateToken(BearerToken, nameof(BearerToken));
        ValidateTokens();
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

            PeerCredentials.RefuseClearText(uri, AnyToken, AllowInsecureCredentials, nameof(Urls));
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

        Within(SessionRetention, TimeSpan.FromDays(30), nameof(SessionRetention));
        Positive(MaxSessions, nameof(MaxSessions));
        Positive(MaxRememberedPerSession, nameof(MaxRememberedPerSession));
        Positive(MaxRememberedBytesPerSession, nameof(MaxRememberedBytesPerSession));
        Positive(MaxRememberedBytes, nameof(MaxRememberedBytes));
        Positive(MaxRequestBatchCount, nameof(MaxRequestBatchCount));
        Positive(MaxQueuedBatches, nameof(MaxQueuedBatches));
        Positive(MaxStreams, nameof(MaxStreams));
        Positive(MaxSequenceGap, nameof(MaxSequenceGap));
        Positive(MaxStreamsPerConnection, nameof(MaxStreamsPerConnection));
        Positive(MaxConnections, nameof(MaxConnections));
        Positive(MaxStreamsPerIdentity ?? 1, nameof(MaxStreamsPerIdentity));
        Positive(MaxSessionsPerIdentity ?? 1, nameof(MaxSessionsPerIdentity));
        if (Name is not null && (string.IsNullOrWhiteSpace(Name) || Name.Length > 100))
        {
            throw new ArgumentException("A server's name, when set, must be 1 to 100 characters and not only white space.", nameof(Name));
        }

        Within(StreamIdleTimeout, TimeSpan.FromDays(1), nameof(StreamIdleTimeout));
        Within(WriteTimeout, TimeSpan.FromDays(1), nameof(WriteTimeout));
        Within(ConnectionIdleTimeout, TimeSpan.FromDays(1), nameof(ConnectionIdleTimeout));
        Within(ReadIdleTimeout, TimeSpan.FromDays(1), nameof(ReadIdleTimeout));

        if (CertificatePath is not null && !File.Exists(CertificatePath))
        {
            throw new FileNotFoundException("The certificate file does not exist.", CertificatePath);
        }
    }

    /// <summary>How many identities the server tells apart: one without <see cref="BearerTokens"/>.</summary>
    internal int IdentityCount => BearerTokens is { } tokens ? Math.Max(1, tokens.Values.Distinct(StringComparer.Ordinal).Count()) : 1;

    /// <summary>The streams one identity may have open: <see cref="MaxStreamsPerIdentity"/>, or its default share.</summary>
    internal int StreamsPerIdentity => MaxStreamsPerIdentity ?? Share(MaxStreams);

    /// <summary>The sessions one identity may hold: <see cref="MaxSessionsPerIdentity"/>, or its default share.</summary>
    internal int SessionsPerIdentity => MaxSessionsPerIdentity ?? Share(MaxSessions);

    // The whole divided among the identities, but never less than a quarter of it (nor less than one).
    private int Share(int whole) => Math.Max(1, whole / Math.Min(IdentityCount, 4));

    private void ValidateTokens()
    {
        if (BearerTokens is not { } tokens)
        {
            return;
        }

        if (BearerToken is not null)
        {
            throw new ArgumentException("Set BearerToken (one token, one identity) or BearerTokens (tokens mapped to identities), not both.", nameof(BearerTokens));
        }

        if (tokens.Count == 0)
        {
            throw new ArgumentException("BearerTokens needs at least one token; use null for no token.", nameof(BearerTokens));
        }

        foreach (var (token, identity) in tokens)
        {
            ArgumentNullException.ThrowIfNull(token, nameof(BearerTokens));
            PeerCredentials.ValidateToken(token, nameof(BearerTokens));
            if (string.IsNullOrWhiteSpace(identity))
            {
                throw new ArgumentException("Each token in BearerTokens needs an identity that is not empty or white space.", nameof(BearerTokens));
            }
        }
    }

    private static void Positive(long value, string name)
    {
        if (value <= 0)
        {
            throw new ArgumentOutOfRangeException(name, value, "Must be positive.");
        }
    }

    private static void Within(TimeSpan value, TimeSpan most, string name)
    {
        if (value <= TimeSpan.Zero || value > most)
        {
            throw new ArgumentOutOfRangeException(name, value, $"Must be positive and at most {most}.");
        }
    }
}
