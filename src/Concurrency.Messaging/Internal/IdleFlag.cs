namespace Concurrency.Messaging.Internal;

/// <summary>
/// The idle/scheduled status of a consumer whose queue cannot mark it idle atomically with finding itself empty (a ring, a
/// locked queue taken one message at a time, <see cref="System.Collections.Concurrent.BlockingCollection{T}"/>, a
/// <see cref="System.Threading.Channels.Channel{T}"/>'s reader): it lives beside the queue, inside its
/// <see cref="ITurnQueue{T}"/>, and Dekker's rule keeps every wake-up.
/// </summary>
/// <remarks>
/// A producer stores its message, then (after a full fence) reads the flag, and claims an idle consumer by
/// compare-and-swap (<see cref="TryClaim"/>). A turn that found the queue empty stores Idle with a full fence
/// (<see cref="ReleaseThenLook"/>), then looks at the queue again, and takes the flag back if something came. Either the
/// producer sees Idle and schedules a turn, or the turn's second look sees the message; if both happen, the
/// compare-and-swap lets only one of them go on. Starts Idle: the consumer waits for its
/// first post. A consumer that finished never releases it again, so it is never scheduled again.
/// </remarks>
internal struct IdleFlag
{
    private const int Idle = 0, Scheduled = 1;

    private PaddedState _state; // Idle or Scheduled; producers read it on every post, so it has a line of its own

    /// <summary>Producer side, after its message is in the queue and after a full fence: whether it claimed an idle consumer.</summary>
    public bool TryClaim() =>
        Volatile.Read(ref _state.Value) == Idle && Interlocked.CompareExchange(ref _state.Value, Scheduled, Idle) == Idle;

    /// <summary>
    /// The running turn, having found <paramref name="queue"/> empty: marks the consumer idle (a full fence: the look below
    /// cannot move above it), looks at the queue once more, and takes the consumer back if something came.
    /// </summary>
    /// <returns><see langword="true"/> if this turn still holds the consumer and should take again; <see langword="false"/>
    /// if it is idle now (nothing came, or a producer saw Idle and queued the next turn): the turn must touch nothing more.</returns>
    /// <remarks>
    /// A look that throws counts as work: the turn takes the consumer back and its next take, which throws again while it
    /// holds the consumer, ends the consumer cleanly. Failing here, after the release, would let a producer's turn run beside
    /// the failing one, and the consumer would exit twice.
    /// </remarks>
    public bool ReleaseThenLook<T, TQueue>(ref TQueue queue)
        where TQueue : struct, ITurnQueue<T>
    {
        Interlocked.Exchange(ref _state.Value, Idle);
        return LookAgain<T, TQueue>(ref queue);
    }

    /// <summary>
    /// As <see cref="ReleaseThenLook"/>, for a queue whose producers read the flag with no fence of their own after posting
    /// (a ring's single producer): a process-wide barrier between storing Idle and the look
    /// makes every producer's earlier post visible to the look, or this store visible to every producer's later read of the
    /// flag. It costs microseconds, once per time the consumer goes idle, so that a post in a stream costs no fence.
    /// </summary>
    public bool ReleaseBehindBarrierThenLook<T, TQueue>(ref TQueue queue)
        where TQueue : struct, ITurnQueue<T>
    {
        Volatile.Write(ref _state.Value, Idle);
        Interlocked.MemoryBarrierProcessWide();
        return LookAgain<T, TQueue>(ref queue);
    }

    private bool LookAgain<T, TQueue>(ref TQueue queue)
        where TQueue : struct, ITurnQueue<T>
    {
        bool more;
        try
        {
            more = queue.HasWork();
        }
        catch (Exception)
        {
            more = true;
        }

        return more && Interlocked.CompareExchange(ref _state.Value, Scheduled, Idle) == Idle;
    }
}
