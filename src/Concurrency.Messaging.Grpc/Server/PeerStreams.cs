using System.Diagnostics;

namespace Concurrency.Messaging.Grpc;

/// <summary>
/// The streams a server has open, by identity, and who may open one more. Under <see cref="PeerServerOptions.MaxStreams"/>
/// and the identity's <see cref="PeerServerOptions.MaxStreamsPerIdentity"/> a new stream is let in; at either bound the
/// stream idle longest past <see cref="PeerServerOptions.StreamIdleTimeout"/> (of the identity, when the identity's bound is
/// the one reached) is ended to make room, and with none such the new stream is refused. So a client holding idle streams
/// keeps a new one out for at most the idle timeout. The search for the idlest is a scan of at most the bound's streams,
/// made only when a bound is reached; a stream that gives way is counted out at once, though it takes a moment to end.
/// </summary>
internal sealed class PeerStreams
{
    private readonly PeerServerOptions _options;
    private readonly int _perIdentity;

    // Guards _all and _groups, and each slot's place in them.
    private readonly Lock _lock = new();

    // Every open stream's slot, and each identity's. Guarded by _lock. The identities come from the options: few.
    private readonly LinkedList<StreamSlot> _all = new();
    private readonly Dictionary<string, LinkedList<StreamSlot>> _groups = new(StringComparer.Ordinal);

    // _all.Count, written under _lock, read without it (the meter).
    private int _count;

    public PeerStreams(PeerServerOptions options)
    {
        _options = options;
        _perIdentity = options.StreamsPerIdentity;
    }

    /// <summary>Gets the streams open now.</summary>
    public int Count => Volatile.Read(ref _count);

    /// <summary>
    /// Lets a stream of <paramref name="identity"/> in, ending an idle one to make room if needed; null when it must be
    /// refused, with <paramref name="identityFull"/> saying whether the identity's bound, rather than the server's, was reached.
    /// </summary>
    public StreamSlot? TryOpen(string identity, out bool identityFull)
    {
        identityFull = false;
        var time = _options.TimeProvider;
        var now = time.GetTimestamp();
        CancellationTokenSource? stop = null;
        StreamSlot slot;
        lock (_lock)
        {
            if (!_groups.TryGetValue(identity, out var group))
            {
                group = new LinkedList<StreamSlot>();
                _groups.Add(identity, group);
            }

            var crowded = group.Count >= _perIdentity ? group : _all.Count >= _options.MaxStreams ? _all : null;
            if (crowded is not null)
            {
                if (IdlestLocked(crowded, now - (long)(_options.StreamIdleTimeout.TotalSeconds * time.TimestampFrequency)) is not { } idlest)
                {
                    identityFull = crowded == group && _perIdentity < _options.MaxStreams;
                    return null;
                }

                RemoveLocked(idlest);
                stop = idlest.GiveWay();
            }

            slot = new StreamSlot(identity, now);
            _all.AddLast(slot.AllNode);
            group.AddLast(slot.GroupNode);
            Volatile.Write(ref _count, _all.Count);
            Debug.Assert(_all.Count <= _options.MaxStreams && group.Count <= _perIdentity, "the bounds hold");
        }

        if (stop is not null)
        {
            try
            {
                stop.Cancel();
            }
            catch (ObjectDisposedException)
            {
                // That stream ended meanwhile.
            }
        }

        return slot;
    }

    /// <summary>The stream ended; its place is free (unless it gave way, and was counted out then).</summary>
    public void Close(StreamSlot slot)
    {
        lock (_lock)
        {
            if (slot.AllNode.List is not null)
            {
                RemoveLocked(slot);
            }
        }
    }

    // The stream idle longest among those that may give way (active last at or before the cutoff); null if none.
    private static StreamSlot? IdlestLocked(LinkedList<StreamSlot> streams, long cutoff)
    {
        StreamSlot? idlest = null;
        for (var node = streams.First; node is not null; node = node.Next)
        {
            var candidate = node.Value;
            if (candidate.MayGiveWay(cutoff) && (idlest is null || candidate.LastActive < idlest.LastActive))
            {
                idlest = candidate;
            }
        }

        return idlest;
    }

    private void RemoveLocked(StreamSlot slot)
    {
        Debug.Assert(_lock.IsHeldByCurrentThread, "slots move under the lock");
        _all.Remove(slot.AllNode);
        _groups[slot.Identity].Remove(slot.GroupNode);
        Volatile.Write(ref _count, _all.Count);
    }
}
