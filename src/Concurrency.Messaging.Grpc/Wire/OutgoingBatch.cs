namespace Concurrency.Messaging.Grpc;

/// <summary>
/// What the pump writes in one request: the sends, each encoded straight from its <see cref="PendingSend"/> as a
/// <c>PeerBatch</c> envelope (see <see cref="PeerWire"/>), without building a message object per send. The pump owns it:
/// it fills it, awaits the write (which encodes it before it completes), then clears it.
/// </summary>
internal sealed class OutgoingBatch
{
    public OutgoingBatch(int capacity) => Sends = new List<PendingSend>(capacity);

    /// <summary>Gets the sends, numbered, in the order they are written.</summary>
    public List<PendingSend> Sends { get; }

    /// <summary>Gets or sets whether the batch asks the server for a heartbeat.</summary>
    public bool Heartbeat { get; set; }

    /// <summary>Gets or sets the highest sequence number every reply up to which has arrived.</summary>
    public ulong Acknowledged { get; set; }

    public void Clear()
    {
        Sends.Clear();
        Heartbeat = false;
        Acknowledged = 0;
    }
}
