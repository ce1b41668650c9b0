using System.Diagnostics;
using Concurrency.Messaging.Grpc.Protocol;

namespace Concurrency.Messaging.Grpc;

/// <summary>
/// One open stream's place among the server's streams (<see cref="PeerStreams"/>): whose it is, when it last brought a
/// request or a new acknowledgement (heartbeats do not count), and how to end it if it must give way to a new stream.
/// </summary>
internal sealed class StreamSlot
{
    // Timestamps of the options' clock. Written by the stream's reader, read by admission under the registry's lock.
    private long _lastActive;

    // Written by the reader: the highest sequence number this stream brought; read by admission, which leaves a stream
    // alone while its session has not handled that far (a handler still at work for it).
    private long _highestBrought;

    // The reader's only: the acknowledged mark this stream last brought.
    private ulong _acknowledged;

    // Written once by the reader when the stream is attached to its session; read by admission (null before: not idle yet).
    private Attached? _attached;

    // Set under the registry's lock when the slot is taken from the stream; read by the reader once its loop ends.
    private volatile bool _gaveWay;

    public StreamSlot(string identity, long now)
    {
        Identity = identity;
        _lastActive = now;
        AllNode = new LinkedListNode<StreamSlot>(this);
        GroupNode = new LinkedListNode<StreamSlot>(this);
    }

    public string Identity { get; }

    /// <summary>Gets the node in the registry's list of every open stream; guarded by its lock.</summary>
    public LinkedListNode<StreamSlot> AllNode { get; }

    /// <summary>Gets the node in the registry's list of the identity's open streams; guarded by its lock.</summary>
    public LinkedListNode<StreamSlot> GroupNode { get; }

    /// <summary>Gets whether the stream was ended to make room for a new one (it then ends with <c>Unavailable</c>).</summary>
    public bool GaveWay => _gaveWay;

    public long LastActive => Volatile.Read(ref _lastActive);

    /// <summary>Reader only, once: the stream's session, and the source whose cancellation ends the stream.</summary>
    public void Attach(PeerSession session, CancellationTokenSource stop)
    {
        Debug.Assert(_attached is null, "a stream is attached once");
        Volatile.Write(ref _attached, new Attached(session, stop));
    }

    /// <summary>Reader only: a batch that brings requests or a new acknowledgement makes the stream active now.</summary>
    public void Saw(PeerBatch batch, TimeProvider time)
    {
        var envelopes = batch.Envelopes;
        if (envelopes.Count > 0)
        {
            Volatile.Write(ref _highestBrought, (long)envelopes[^1].Sequence); // strictly increasing: PeerService checked
        }
        else if (batch.Acknowledged <= _acknowledged)
        {
            return;
        }

        _acknowledged = Math.Max(_acknowledged, batch.Acknowledged);
        Volatile.Write(ref _lastActive, time.GetTimestamp());
    }

    /// <summary>
    /// Under the registry's lock: whether the stream may give way, being attached, with nothing of its own still being
    /// handled, and active last at or before <paramref name="cutoff"/>.
    /// </summary>
    public bool MayGiveWay(long cutoff)
    {
        // HandledThrough is the session's gate's; a stale read only makes a stream look busy a moment longer.
        return _attached is { } attached && LastActive <= cutoff && attached.Session.HandledThrough >= (ulong)Volatile.Read(ref _highestBrought);
    }

    /// <summary>Under the registry's lock, once: marks the slot taken and returns what ends the stream (cancelled outside the lock).</summary>
    public CancellationTokenSource GiveWay()
    {
        Debug.Assert(_attached is not null && !_gaveWay, "only an attached stream gives way, once");
        _gaveWay = true;
        return _attached.Stop;
    }

    private sealed record Attached(PeerSession Session, CancellationTokenSource Stop);
}
