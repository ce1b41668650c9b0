namespace Concurrency.Messaging.Internal;

/// <summary>
/// How the <see cref="TurnRunner"/> waits, the one thing its two ways of running a consumer differ in (as a
/// <see cref="SemaphoreSlim"/> spins, then blocks): the queue decides "empty" and "idle", the runner hands over and counts,
/// and this decides what the thread does meanwhile. As turns on the pool, a spent budget yields the thread and going idle
/// ends the turn; on a thread of its own (<see cref="ThreadWait"/>), the thread goes on after its budget and parks where a
/// turn would go idle, until the post that claims the idle consumer wakes it.
/// </summary>
/// <remarks>Implemented by structs, so that the runner's code is compiled for each way and every call here is direct.</remarks>
internal interface ITurnWait
{
    /// <summary>The budget is spent: whether the runner goes on (a thread of its own) or has handed the consumer on and must return (the pool).</summary>
    bool GoOnAfterBudget();

    /// <summary>
    /// The queue was found empty, the consumer not yet idle: looks at <paramref name="queue"/> again for a while (without
    /// taking), and says whether the next take should mark the consumer idle if it is still empty.
    /// </summary>
    bool LookBeforeIdle<T, TQueue>(ref TQueue queue)
        where TQueue : struct, ITurnQueue<T>;

    /// <summary>
    /// A take marked the consumer idle: either returns <see langword="false"/> at once (the turn ends; the next post
    /// schedules the next one), or blocks until the consumer is scheduled again and returns <see langword="true"/> (the
    /// thread holds the consumer again and goes on).
    /// </summary>
    bool WaitUntilScheduled();
}
