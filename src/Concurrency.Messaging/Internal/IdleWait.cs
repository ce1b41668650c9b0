namespace Concurrency.Messaging.Internal;

/// <summary>
/// How a side that found nothing to do (a consumer facing an empty queue, a producer facing a full ring) waits before it
/// parks: first it pauses, looking again after each pause, then it yields its core, and only then does it park.
/// </summary>
/// <remarks>
/// <para>
/// On two or more cores the other side is running right now, so pausing and looking again hands over a batch in well under
/// a microsecond. Looking back to back would pull the other side's cache line away on every message; the pause is sized by
/// the caller (for a ring, to the time the other side needs to fill or drain part of it) so a batch builds up in between.
/// </para>
/// <para>
/// On one core pausing only burns the time the other side needs: the wait yields from the start, so the producer fills and
/// the consumer drains in large batches, one context switch each way per batch. The same holds whenever the threads that
/// take part outnumber the cores (a producer and three broadcast consumers on two cores): a pausing thread holds a core
/// that another party needs, and a ring of capacity 1 fell to one message per 350 µs that way. Such a wait yields from
/// the start too (see <see cref="SpinsFor"/>).
/// </para>
/// <para>
/// A pause helps only while the other side runs on another core. Where the two share a core (a woken thread often lands
/// on its waker's core; a loaded machine runs both wherever a core is free), pausing keeps the other side off it, so every
/// pause after the first begins with a yield, and a side whose last wait needed more than one look starts its next wait
/// with the yield (<see cref="NextYieldsFirst"/>): a ring then hands over once per ring-full, as on one core, instead of
/// each side pausing out its budget per ring-full.
/// </para>
/// <para>
/// Parking costs a process-wide barrier and a wake-up later, so it comes last: about 100 µs of pausing (yields between
/// pauses included), then <see cref="YieldsBeforePark"/> yields. Once parked, a side costs no CPU at all until it is woken.
/// </para>
/// </remarks>
internal struct IdleWait
{
    /// <summary>The longest a side pauses before it starts yielding, in <see cref="Thread.SpinWait(int)"/> iterations (about 100 µs on the 2-core VM this was measured on).</summary>
    private const int PauseBudget = 4000;

    private const int YieldsBeforePark = 40;

    /// <summary>The pause between a consumer's looks at an empty unbounded queue, in <see cref="Thread.SpinWait(int)"/> iterations: long, so a batch builds up in between.</summary>
    public const int QueuePause = 200;

    /// <summary>What a yield that returns at once costs, in <see cref="Thread.SpinWait(int)"/> iterations (a system call: about a microsecond).</summary>
    private const int YieldCost = 40;

    private readonly bool _spin; // whether pausing can pay off: every party has a core of its own
    private int _paused;         // SpinWait iterations spent since the last reset
    private int _yielded;        // yields since the last reset
    private int _looks;          // calls to Wait since the last reset
    private bool _yieldFirst;    // learned at each reset: the last wait needed more than one look, so the next one yields first

    /// <summary>Creates a wait that pauses before it yields only if <paramref name="spin"/> (see <see cref="SpinsFor"/>).</summary>
    /// <param name="spin">Whether pausing can pay off (see <see cref="SpinsFor"/>).</param>
    /// <param name="yieldFirst">Whether the first look yields instead of pausing: what an earlier wait of the same side
    /// learned (<see cref="NextYieldsFirst"/>), for a side that makes a new wait each time.</param>
    public IdleWait(bool spin, bool yieldFirst = false)
    {
        _spin = spin;
        _yieldFirst = yieldFirst;
    }

    /// <summary>
    /// Gets what this side's next wait should start with: a yield (<see langword="true"/>) when the wait so far needed more
    /// than one look, so one pause did not bring the other side's work; a pause when one look sufficed. A wait that has
    /// not looked yet passes on what it was created with.
    /// </summary>
    public readonly bool NextYieldsFirst => _looks == 0 ? _yieldFirst : _looks > 1;

    /// <summary>Whether a wait among <paramref name="threads"/> busy threads (producers and consumers) should pause: only when each has a core.</summary>
    public static bool SpinsFor(int threads) => Environment.ProcessorCount > 1 && threads <= Environment.ProcessorCount;

    /// <summary>
    /// For a consumer run as pool turns that found its queue empty, on more than one core: looks again a few times over
    /// about six microseconds before it goes idle. A producer streaming into a faster consumer refills the queue within
    /// that time, and going idle would cost the producer a thread-pool wake-up (a system call) at its next post; looking
    /// less often lets a batch build up in between and leaves the producer's cache line alone (measured here: shorter
    /// pauses moved a stream 30% slower). On one core the producer cannot run while this thread looks, so it goes idle
    /// at once. A consumer pays this each time it runs dry, not per message.
    /// </summary>
    /// <returns>Whether <paramref name="queue"/> had work before the looks ran out.</returns>
    public static bool LookBeforeIdle<T, TQueue>(ref TQueue queue)
        where TQueue : struct, ITurnQueue<T>
    {
        if (Environment.ProcessorCount == 1)
        {
            return false;
        }

        for (var look = 0; look < LooksBeforeIdle; look++)
        {
            Thread.SpinWait(PauseBetweenLooks);
            if (queue.HasWork())
            {
                return true;
            }
        }

        return false;
    }

    private const int LooksBeforeIdle = 4;

    private const int PauseBetweenLooks = 60;

    /// <summary>The pause, in <see cref="Thread.SpinWait(int)"/> iterations (about 27 ns each here), that fits a ring of <paramref name="capacity"/>.</summary>
    /// <remarks>
    /// Long enough for the other side to move about an eighth of the ring, so a small ring is polled often enough not to
    /// stall the producer, and a large one is not polled so often that every look steals a cache line.
    /// </remarks>
    public static int PauseFor(int capacity) => Math.Clamp(capacity / 8, 1, 200);

    /// <summary>Waits a little.</summary>
    /// <param name="pause">The pause, in <see cref="Thread.SpinWait(int)"/> iterations, while pausing is still worth it.</param>
    /// <returns><see langword="false"/> once pausing and yielding have run out: the caller should park.</returns>
    public bool Wait(int pause)
    {
        _looks++;
        if (_spin && _paused < PauseBudget)
        {
            // A pause pays off only while the other side runs on another core. When it shares this one (the scheduler
            // often wakes a thread onto its waker's core, and a loaded machine runs both on whichever core is free), a
            // pause keeps it off the core: the side waiting for room and the side waiting for work each paused out their
            // whole budget once per ring-full, a lockstep that moved 5 M msg/s where streaming moves tens of millions. So
            // every pause after the first begins with a yield, which hands the core to the other side if it waits here
            // and returns at once if nothing else is runnable; and once a wait needed more than one look, the next one
            // starts with the yield (see NextYieldsFirst).
            // Each yield is charged to the budget at what a yield that finds nothing else to run costs (about a
            // microsecond), so a small pause does not turn the budget into thousands of system calls.
            if (_looks == 1 && _yieldFirst)
            {
                Thread.Yield();
                _paused += YieldCost;
                return true;
            }

            if (_paused != 0)
            {
                Thread.Yield();
                _paused += YieldCost;
            }

            Thread.SpinWait(pause);
            _paused += pause;
            return true;
        }

        if (_yielded < YieldsBeforePark)
        {
            Thread.Yield();
            _yielded++;
            return true;
        }

        return false;
    }

    /// <summary>Starts over, after the side found work (or was woken).</summary>
    public void Reset()
    {
        _yieldFirst = NextYieldsFirst;
        _looks = 0;
        _paused = 0;
        _yielded = 0;
    }
}
