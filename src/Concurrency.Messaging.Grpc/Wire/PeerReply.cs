namespace Concurrency.Messaging.Grpc;

/// <summary>One envelope of a server's batch, as the client reads it (see <see cref="PeerWire"/>).</summary>
/// <param name="Sequence">The sequence number of the request it answers.</param>
/// <param name="Type">The reply's type.</param>
/// <param name="Source">The reply's source.</param>
/// <param name="Payload">The reply's bytes, copied out of the read buffer: the caller owns them.</param>
/// <param name="Error">Empty, or why the request failed on the server.</param>
/// <param name="Forgotten">Whether the server handled the request but no longer remembers its reply (see the proto file).</param>
internal readonly record struct PeerReply(ulong Sequence, string Type, string Source, ReadOnlyMemory<byte> Payload, string Error, bool Forgotten = false);
