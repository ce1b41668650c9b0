namespace Concurrency.Messaging.Internal;

/// <summary>
/// A consumer's side of its queue, as the <see cref="TurnRunner"/> takes from it: a take either returns messages or marks
/// the consumer idle, atomically with finding the queue empty, so that the next post schedules a turn and no wake-up is
/// lost. Each queue does it its own way: under its lock (the batch-drain queue notes the idle consumer where producers
/// append), or, where the queue cannot, with an <see cref="IdleFlag"/> beside it and Dekker's rule (the producer stores,
/// fences, reads the flag; the consumer stores Idle, fences, looks again).
/// </summary>
/// <typeparam name="T">The message type.</typeparam>
/// <remarks>
/// Implemented by structs, held in place by their consumer, so that the runner's code is compiled for each queue and the
/// take, once per message for a queue that hands out one at a time, is a direct call.
/// </remarks>
internal interface ITurnQueue<T>
{
    /// <summary>
    /// The running turn only: takes what is waiting without waiting for more, up to <paramref name="most"/> (a queue may
    /// take all it has; the runner keeps the rest for its next turn). A queue that keeps a lone message apart, or hands out
    /// one at a time, returns it in <paramref name="one"/>.
    /// </summary>
    /// <param name="batch">The consumer's array: the messages taken go to <c>batch[0..count)</c>; the queue may swap it for
    /// its own. The runner has cleared it.</param>
    /// <param name="most">The most messages the turn can still handle.</param>
    /// <param name="idleIfEmpty">Whether an empty, open queue marks the consumer idle (<see cref="TurnTake.Idle"/>) or only
    /// says so (<see cref="TurnTake.Empty"/>).</param>
    /// <param name="count">With <see cref="TurnTake.Taken"/>: how many messages are in <paramref name="batch"/>.</param>
    /// <param name="one">With <see cref="TurnTake.TakenOne"/>: the message.</param>
    TurnTake Take(ref Slot<T>[] batch, int most, bool idleIfEmpty, out int count, out T one);

    /// <summary>Whether a message is waiting or the queue is closed: read while the consumer looks before going idle.</summary>
    bool HasWork();

    /// <summary>
    /// The producer's side, after its message (or the close) is in the queue and after a full fence: claims the consumer if
    /// it is idle, and then the caller schedules its turn. A queue that notes its idle consumer under its own lock schedules
    /// it from its post and returns <see langword="false"/> here.
    /// </summary>
    bool TryClaimIdle();
}
