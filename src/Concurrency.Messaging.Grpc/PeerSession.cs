using Concurrency.Messaging.Grpc.Protocol;

namespace Concurrency.Messaging.Grpc;

/// <summary>
/// What a server remembers of one client session across its streams: the highest sequence number handled, and the
/// replies the client has not acknowledged yet, so that a resend after a reconnect is answered from memory rather than
/// handled twice. One stream at a time handles a batch (<see cref="Gate"/>): an old stream the client gave up on may
/// still be working when the new one arrives.
/// </summary>
internal sealed class PeerSession
{
    // Bounds the memory of a client that never acknowledges (a plain client of the protocol); the oldest are forgotten.
    private const int MaxRemembered = 1 << 20;

    // Guarded by Gate: replies in sequence order, oldest first.
    private readonly Queue<Envelope> _replies = new();

    // Changed with Interlocked: streams of this session now open.
    private int _streams;

    // Written under Gate or by the registry's sweep; read by the sweep.
    private long _lastActive = Environment.TickCount64;

    public SemaphoreSlim Gate { get; } = new(1, 1);

    /// <summary>Gets or sets the highest sequence number handled. Guarded by <see cref="Gate"/>.</summary>
    public ulong HandledThrough { get; set; }

    public int Streams => Volatile.Read(ref _streams);

    public long LastActive => Volatile.Read(ref _lastActive);

    public void Attach() => Interlocked.Increment(ref _streams);

    public int Detach()
    {
        Volatile.Write(ref _lastActive, Environment.TickCount64);
        return Interlocked.Decrement(ref _streams);
    }

    /// <summary>Forgets the replies the client has acknowledged. Under <see cref="Gate"/>.</summary>
    public void Acknowledge(ulong through)
    {
        while (_replies.TryPeek(out var oldest) && oldest.Sequence <= through)
        {
            _replies.Dequeue();
        }
    }

    /// <summary>Remembers a reply until the client acknowledges it. Under <see cref="Gate"/>.</summary>
    public void Remember(Envelope reply)
    {
        if (_replies.Count == MaxRemembered)
        {
            _replies.Dequeue();
        }

        _replies.Enqueue(reply);
    }

    /// <summary>Finds the remembered reply to a resent request; null if it was acknowledged (the client has it). Under <see cref="Gate"/>.</summary>
    public Envelope? Recall(ulong sequence)
    {
        foreach (var reply in _replies)
        {
            if (reply.Sequence == sequence)
            {
                return reply;
            }

            if (reply.Sequence > sequence)
            {
                break;
            }
        }

        return null;
    }
}
