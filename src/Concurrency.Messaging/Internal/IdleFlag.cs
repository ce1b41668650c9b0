using Concurrency.Messaging.Pipes;

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
/// (<see cref="Release"/>), then looks at the queue again, and takes the flag back if something came
/// (<see cref="TryReclaim"/>). Either the producer sees Idle and schedules a turn, or the turn's second look sees the
/// message; if both happen, the compare-and-swap lets only one of them go on. Starts Idle: the consumer waits for its
/// first post. A consumer that finished never releases it again, so it is never scheduled again.
/// </remarks>
internal struct IdleFlag
{
    private const int Idle = 0, Scheduled = 1;

    private PaddedState _state; // Idle or Scheduled; producers read it on every post, so it has a line of its own

    /// <summary>Producer side, after its message is in the queue and after a full fence: whether it claimed an idle consumer.</summary>
    public bool TryClaim() =>
        Volatile.Read(ref _state.Value) == Idle && Interlocked.CompareExchange(ref _state.Value, Scheduled, Idle) == Idle;

    /// <summary>The running turn, having found the queue empty: marks the consumer idle. A full fence: the next look cannot move above it.</summary>
    public void Release() => Interlocked.Exchange(ref _state.Value, Idle);

    /// <summary>After <see cref="Release"/>, when the look found work: whether this turn got the consumer back (else a producer did).</summary>
    public bool TryReclaim() => Interlocked.CompareExchange(ref _state.Value, Scheduled, Idle) == Idle;
}
