namespace Concurrency.Messaging.Grpc;

/// <summary>
/// The server's worst-case memory as a formula of its options, written once: docs/grpc.md ("Worst-case memory") and
/// <see cref="PeerServerOptions.MaxQueuedBatches"/> state it, and the memory probe (a process of its own, launched by the
/// tests) checks the heap against it. What the handler allocates while it answers is the handler's, and not in it.
/// </summary>
internal static class PeerMemoryBound
{
    /// <summary>A request batch on the wire: gRPC's limit on a message, which the server keeps (PeerHosting).</summary>
    public const long WireBytes = PeerClientOptions.WireLimitBytes;

    /// <summary>What a request or reply holds beyond its bytes: its envelope, byte string, array and string headers.</summary>
    public const long ObjectBytesPerReply = 256;

    /// <summary>A session's own objects: the session, its id, its gate, its place in the table and the idle list.</summary>
    public const long SessionBytes = 1024;

    /// <summary>
    /// Kestrel's buffers for one HTTP/2 connection, at its defaults (the server sets none of them): the connection's
    /// receive window (1 MiB, InitialConnectionWindowSize; each stream's 768 KiB window lies within it), the response
    /// buffer (64 KiB, MaxResponseBufferSize), the request headers (32 KiB, MaxRequestHeadersTotalSize) and the HPACK
    /// table (4 KiB, HeaderTableSize).
    /// </summary>
    public const long KestrelConnectionBytes = (1024 * 1024) + (64 * 1024) + (32 * 1024) + (4 * 1024);

    /// <summary>
    /// A stream's request batches: MaxQueuedBatches queued, one being answered, one the reader holds while it waits for
    /// room, each at most twice its wire size (4 MiB of strings is 8 MiB as UTF-16) and its requests' objects; and the one
    /// being read, as bytes.
    /// </summary>
    public static long RequestBatchesPerStream(PeerServerOptions options)
        => ((options.MaxQueuedBatches + 2L) * ((2 * WireBytes) + (options.MaxRequestBatchCount * ObjectBytesPerReply))) + WireBytes;

    /// <summary>
    /// One reply batch: <see cref="PeerServerOptions.MaxBatchBytes"/> (a single reply may pass it, up to twice
    /// <see cref="PeerServerOptions.MaxMessageBytes"/> as UTF-16), and its replies' objects.
    /// </summary>
    public static long ReplyBatch(PeerServerOptions options) => Math.Max(options.MaxBatchBytes, 2L * options.MaxMessageBytes) + (options.MaxBatchCount * ObjectBytesPerReply);

    /// <summary>A stream's reply batches: MaxQueuedBatches queued, one being made, one being written, and that one's bytes in Kestrel's output.</summary>
    public static long ReplyBatchesPerStream(PeerServerOptions options) => (options.MaxQueuedBatches + 3L) * ReplyBatch(options);

    /// <summary>What one stream holds at most.</summary>
    public static long PerStream(PeerServerOptions options) => RequestBatchesPerStream(options) + ReplyBatchesPerStream(options);

    /// <summary>
    /// What the whole server holds at most: every stream at its most, the remembered replies (counted as allocated), the
    /// sessions, and Kestrel's buffers for every connection.
    /// </summary>
    public static long Server(PeerServerOptions options)
        => (options.MaxStreams * PerStream(options))
            + options.MaxRememberedBytes
            + (options.MaxSessions * SessionBytes)
            + (options.MaxConnections * KestrelConnectionBytes);
}
