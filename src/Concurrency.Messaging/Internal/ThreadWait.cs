namespace Concurrency.Messaging.Internal;

/// <summary>
/// The second way a consumer waits (see <see cref="ITurnWait"/>): on a thread of its own, for the consumer's whole life.
/// A queue found empty is watched without taking: a pause, a look, and so on, then yields (<see cref="IdleWait"/>); when
/// that runs out the take marks the consumer idle exactly as a pooled turn's take does, and the thread parks until the post
/// that claims the idle consumer schedules it, which here means <see cref="Wake"/>. The post path is the same for both
/// ways; so is every rule about losing no wake-up (the queue's, see <see cref="ITurnQueue{T}"/>).
/// </summary>
/// <remarks>
/// Held in place by its consumer; <see cref="LookBeforeIdle"/> and <see cref="WaitUntilScheduled"/> are the consumer's
/// thread's only, <see cref="Wake"/> is the producer's that claimed the idle consumer. A claim happens once per idle, and
/// each idle is followed by exactly one park, so the semaphore's releases and waits pair one to one.
/// </remarks>
[System.Diagnostics.CodeAnalysis.SuppressMessage("Design", "CA1001", Justification = "The semaphore holds no kernel handle unless one is asked for, and a wake racing the consumer's end must not find it disposed.")]
internal struct ThreadWait : ITurnWait
{
    /// <summary>How many messages the thread hands over between two counts given to its owner, if the queue never runs dry.</summary>
    public const int CountEvery = 4096;

    private readonly SemaphoreSlim _scheduled = new(0); // released by the claiming producer (Wake), taken by the park
    private readonly int _pause;                        // IdleWait's pause for this queue
    private IdleWait _idle;                             // the consumer's thread only: what its last wait learned
    private volatile bool _parked;                      // written by the consumer's thread around its park; read by tests

    /// <param name="pause">The pause between looks, in <see cref="Thread.SpinWait(int)"/> iterations (see <see cref="IdleWait.Wait"/>).</param>
    /// <param name="spin">Whether pausing can pay off (see <see cref="IdleWait.SpinsFor"/>).</param>
    public ThreadWait(int pause, bool spin)
    {
        _pause = pause;
        _idle = new IdleWait(spin);
    }

    /// <summary>Gets whether the thread is parked (or about to park): idle and costing no CPU.</summary>
    public readonly bool IsParked => _parked;

    /// <summary>The producer that claimed the idle consumer (its schedule): wakes the parked thread.</summary>
    public readonly void Wake() => _scheduled.Release();

    public readonly bool GoOnAfterBudget() => true;

    public bool LookBeforeIdle<T, TQueue>(ref TQueue queue)
        where TQueue : struct, ITurnQueue<T>
    {
        _idle.Reset(); // a new wait, starting the way the last one ended (see IdleWait.NextYieldsFirst)
        while (_idle.Wait(_pause))
        {
            if (queue.HasWork())
            {
                return false;
            }
        }

        return true; // pausing and yielding ran out: the next take goes idle if it is still empty, and the thread parks
    }

    public bool WaitUntilScheduled()
    {
        _parked = true;
        _scheduled.Wait();
        _parked = false;
        return true;
    }
}
