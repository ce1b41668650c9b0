namespace Concurrency.Messaging.Grpc;

/// <summary>What the client reads in one response: a server's <c>PeerBatch</c>, decoded by <see cref="PeerWire"/>.</summary>
internal sealed class ReplyBatch(int capacity)
{
    /// <summary>Gets the replies, in the order the server wrote them.</summary>
    public List<PeerReply> Replies { get; } = new(capacity);

    /// <summary>Gets or sets whether the batch is a heartbeat (the handshake, or the answer to the client's ping).</summary>
    public bool Heartbeat { get; set; }
}
