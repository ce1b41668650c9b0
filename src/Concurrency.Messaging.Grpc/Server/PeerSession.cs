using System.Diagnostics;
using Concurrency.Messaging.Grpc.Protocol;

namespace Concurrency.Messaging.Grpc;

/// <summary>
/// What a server remembers of one client session across its streams: the highest sequence number handled, and the
/// replies the client has not acknowledged yet, so that a resend after a reconnect is answered from memory rather than
/// handled twice. The memory is bounded, per session in replies and bytes and for the whole server in bytes
/// (<see cref="PeerServerState.TryReserveRemembered"/>); past a bound the oldest reply is forgotten, and a resend of it is
/// answered "forgotten" instead of from memory. One stream at a time handles a batch (<see cref="Gate"/>): an old stream
/// the client gave up on may still be working when the new one arrives. A session belongs to the identity whose stream
/// opened it (<see cref="Identity"/>): only a stream of that identity attaches to it.
/// </summary>
internal sealed class PeerSession(string id, string identity, PeerServerState state)
{
    // The stop of the session's newest stream: a newer stream cancels it, since a client has one stream at a time and
    // opens a new one only when it gave up on the old. Exchanged with Interlocked.
    private CancellationTokenSource? _current;

    // Guarded by Gate: the remembered replies, oldest first (Recall is a binary search: resends are rare). Their Bytes,
    // as allocated, are what this session has reserved in the server's budget.
    private readonly RememberedReplies _replies = new();

    // Guarded by Gate: every reply up to here was acknowledged; above it and not remembered means forgotten.
    private ulong _acknowledged;

    // Changed with Interlocked: streams of this session now open.
    private int _streams;

    // Written under Gate or by the registry's sweep; read by the sweep.
    private long _lastActive = Environment.TickCount64;

    // Guards _highestSeen, _passedOver and _brought: the readers of the session's streams (two at once while a newer
    // stream supersedes an older one) admit batches under it, once a batch.
    private readonly Lock _admission = new();

    // Under _admission: the highest sequence number a stream brought.
    private ulong _highestSeen;

    // Under _admission: sequence numbers the session's batches passed over (a client numbers a send it then drops, when
    // it was cancelled or timed out before its write), and the new ones they brought.
    private ulong _passedOver;
    private ulong _brought;

    // Made once each, under the registry's lock.
    private LinkedListNode<PeerSession>? _idleNode;
    private LinkedListNode<PeerSession>? _groupNode;

    /// <summary>Gets the id the server issued; the client presents it on its later streams.</summary>
    public string Id { get; } = id;

    /// <summary>Gets the identity of the stream that opened the session (see <see cref="PeerServerOptions.BearerTokens"/>).</summary>
    public string Identity { get; } = identity;

    /// <summary>Gets the node that puts this session in the registry's server-wide idle lists; guarded by the registry's lock.</summary>
    public LinkedListNode<PeerSession> IdleNode => _idleNode ??= new LinkedListNode<PeerSession>(this);

    /// <summary>Gets the node that puts this session in its identity's idle lists; guarded by the registry's lock.</summary>
    public LinkedListNode<PeerSession> GroupNode => _groupNode ??= new LinkedListNode<PeerSession>(this);

    /// <summary>Gets or sets which of the registry's idle lists holds the session while it is idle; guarded by the registry's lock.</summary>
    public PeerSessions.Standing IdleStanding { get; set; }

    /// <summary>
    /// Gets what forgetting this session would cost its client, for the registry's order of forgetting: read when no stream
    /// of it is open, so nothing changes it meanwhile (a stream's gate is let go before the stream detaches).
    /// </summary>
    public PeerSessions.Standing Standing => _acknowledged == 0
        ? PeerSessions.Standing.Fresh
        : HandledThrough > _acknowledged ? PeerSessions.Standing.Owing : PeerSessions.Standing.Settled;

    public SemaphoreSlim Gate { get; } = new(1, 1);

    /// <summary>Gets or sets the highest sequence number handled. Guarded by <see cref="Gate"/>.</summary>
    public ulong HandledThrough { get; set; }

    public int Streams => Volatile.Read(ref _streams);

    public long LastActive => Volatile.Read(ref _lastActive);

    /// <summary>Gets the remembered replies. Under <see cref="Gate"/> (or for a test, when nothing runs).</summary>
    public int RememberedCount => _replies.Count;

    /// <summary>Gets the remembered replies' bytes as allocated, reserved in the server's budget. Under <see cref="Gate"/> (or for a test, when nothing runs).</summary>
    public long RememberedBytes => _replies.Bytes;

    /// <summary>Gets the entries' and payloads' array lengths of the remembered replies, for tests (when nothing runs).</summary>
    internal (int Entries, int PayloadBytes) RememberedCapacity => (_replies.Capacity, _replies.PayloadCapacity);

    public void Attach() => Interlocked.Increment(ref _streams);

    /// <summary>Makes <paramref name="stop"/> the session's current stream, stopping the one before (its loops let the gate go).</summary>
    public void Supersede(CancellationTokenSource stop)
    {
        var previous = Interlocked.Exchange(ref _current, stop);
        if (previous is null)
        {
            return;
        }

        try
        {
            previous.Cancel();
        }
        catch (ObjectDisposedException)
        {
            // That stream ended meanwhile.
        }
    }

    /// <summary>The stream of <paramref name="stop"/> ends; it is no longer the one a newer stream stops.</summary>
    public void Leave(CancellationTokenSource stop) => Interlocked.CompareExchange(ref _current, null, stop);

    public int Detach()
    {
        Volatile.Write(ref _lastActive, Environment.TickCount64);
        return Interlocked.Decrement(ref _streams);
    }

    /// <summary>
    /// Reader side, before a batch is accepted: whether its sequence numbers (strictly increasing, checked by the reader)
    /// lie within <paramref name="gap"/> of the highest this session has seen, or for its first batch within
    /// <paramref name="gap"/> of what that batch says the client has <paramref name="acknowledged"/> (0 for a new client,
    /// which numbers from 1; where it was for a client whose session the server forgot, which keeps its numbering); and
    /// whether the numbers the session's batches passed over, this one's included, stay within <paramref name="gap"/> plus
    /// the numbers they brought. A sequence far beyond is refused, not taken as the new high-water mark, which would make
    /// every later request of the client look like a duplicate; and so is a walk to it in steps of <paramref name="gap"/>:
    /// a client passes over only the numbers of sends it dropped before writing them, far fewer than it writes.
    /// </summary>
    public bool Admits(Google.Protobuf.Collections.RepeatedField<Envelope> requests, ulong gap, ulong acknowledged)
    {
        Debug.Assert(requests.Count > 0, "The reader admits batches that carry requests.");
        var last = requests[^1].Sequence;
        lock (_admission)
        {
            var from = _highestSeen != 0 ? _highestSeen : acknowledged;
            if (last <= from)
            {
                return true; // resends only
            }

            if (last - from > gap)
            {
                return false;
            }

            ulong fresh = 0;
            for (var index = requests.Count - 1; index >= 0 && requests[index].Sequence > from; index--)
            {
                fresh++;
            }

            var passedOver = last - from - fresh;
            if (_passedOver + passedOver > gap + _brought)
            {
                return false;
            }

            _passedOver += passedOver;
            _brought += fresh;
            _highestSeen = last;
            return true;
        }
    }

    /// <summary>Forgets the replies the client has acknowledged, and gives back the room they leave. Under <see cref="Gate"/>.</summary>
    public void Acknowledge(ulong through)
    {
        if (through > _acknowledged)
        {
            _acknowledged = through;
            while (_replies.TryPeekOldest(out var oldest) && oldest <= through)
            {
                Forget();
            }
        }

        // A session that once held many replies and now holds few gives their room back, and one that went quiet all of
        // it: a PeerClient with nothing to send still acknowledges on its heartbeats.
        var before = _replies.Bytes;
        _replies.TrimExcess();
        if (before != _replies.Bytes)
        {
            state.ReleaseRemembered(before - _replies.Bytes);
        }
    }

    /// <summary>
    /// Remembers a reply until the client acknowledges it, forgetting the oldest while a bound would be passed; a reply that
    /// alone passes a bound is not remembered. The bounds count what the memory allocates for it (its arrays' growth, its
    /// strings), reserved before anything grows. Under <see cref="Gate"/>.
    /// </summary>
    public void Remember(Envelope reply)
    {
        var options = state.Options;
        var bound = options.MaxRememberedBytesPerSession;
        var plan = _replies.Plan(reply);
        while (_replies.Count > 0 && (_replies.Count >= options.MaxRememberedPerSession || _replies.Bytes + plan.Bytes > bound))
        {
            Forget();
            plan = _replies.Plan(reply);
        }

        if (_replies.Bytes + plan.Bytes > bound || plan.Bytes > options.MaxRememberedBytes)
        {
            return; // larger than a bound by itself: not remembered
        }

        // Most replies allocate nothing (room in the arrays, strings shared with the reply before): no reservation, no
        // interlocked operation on the server's one budget per message.
        while (plan.Bytes > 0 && !state.TryReserveRemembered(plan.Bytes))
        {
            if (_replies.Count == 0)
            {
                return; // the server's budget is spent by other sessions: not remembered, and a resend of it is "forgotten"
            }

            Forget();
            plan = _replies.Plan(reply);
        }

        _replies.Add(reply, plan);
    }

    /// <summary>
    /// Finds the remembered reply to a resent request: the reply; null if the client acknowledged it (it has it); or a
    /// "forgotten" answer if the reply was forgotten before the client acknowledged it. Under <see cref="Gate"/>.
    /// </summary>
    public Envelope? Recall(ulong sequence)
    {
        if (_replies.Find(sequence) is { } reply)
        {
            return reply;
        }

        return sequence <= _acknowledged ? null : new Envelope
        {
            Sequence = sequence,
            Forgotten = true,
            Error = "The server handled this request, but no longer remembers its reply (its memory for replies not yet acknowledged is bounded: PeerServerOptions.MaxRememberedPerSession, MaxRememberedBytesPerSession, MaxRememberedBytes).",
        };
    }

    /// <summary>Forgets everything, giving its bytes back to the server's budget; for a session the registry drops. Under <see cref="Gate"/> or when no stream uses it.</summary>
    public void Clear()
    {
        while (_replies.Count > 0)
        {
            Forget();
        }

        // Twice: the first marks the memory quiet since the replies just forgotten, the second lets the arrays go.
        for (var pass = 0; pass < 2; pass++)
        {
            var before = _replies.Bytes;
            _replies.TrimExcess();
            state.ReleaseRemembered(before - _replies.Bytes);
        }

        System.Diagnostics.Debug.Assert(_replies.Bytes == 0, "An empty memory holds nothing.");
    }

    // Forgets the oldest reply and gives back what that freed: its strings (the arrays stay until a trim).
    private void Forget()
    {
        var before = _replies.Bytes;
        _replies.RemoveOldest();
        if (before != _replies.Bytes)
        {
            state.ReleaseRemembered(before - _replies.Bytes);
        }
    }
}
