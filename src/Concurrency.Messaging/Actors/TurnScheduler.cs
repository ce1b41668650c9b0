namespace Concurrency.Messaging.Actors;

/// <summary>
/// Queues actor turns on the .NET thread pool, with one shortcut taken from Go's scheduler ("runnext"): an actor woken by
/// a turn running on this thread runs next on this thread, right after that turn, instead of going through the pool's
/// queues. A message passed along a chain of actors (a ring, a request and its reply) then costs no queueing and no
/// thread wake-up per hop. Only one actor waits in that slot; any other woken actor goes to the pool, where idle threads
/// take it. A chain is cut after <see cref="MaxChained"/> turns and its next turn goes to the pool, so no chain holds a
/// thread forever while other work waits.
/// </summary>
internal static class TurnScheduler
{
    /// <summary>The most turns one pool work item runs back to back before the next goes to the pool.</summary>
    public const int MaxChained = 256;

    [ThreadStatic]
    private static bool t_inTurn;       // this thread is running a turn: a woken actor may wait in t_runNext

    [ThreadStatic]
    private static IActorTurn? t_runNext; // the actor to run when the current turn ends; this thread only

    /// <summary>Schedules the turn of an actor that just went from idle to having mail.</summary>
    public static void Wake(IActorTurn actor)
    {
        if (t_inTurn && t_runNext is null)
        {
            t_runNext = actor;
            return;
        }

        ThreadPool.UnsafeQueueUserWorkItem(actor, preferLocal: false);
    }

    /// <summary>Gets whether this thread is running an actor's turn, where nothing may block waiting for another actor.</summary>
    public static bool InTurn => t_inTurn;

    /// <summary>Puts an actor that still has mail after a full turn at the back of the pool's queue: fairness first.</summary>
    public static void Yield(IActorTurn actor) => ThreadPool.UnsafeQueueUserWorkItem(actor, preferLocal: false);

    /// <summary>Runs <paramref name="first"/>'s turn, then the turns it (and each next one) woke into the slot, up to the bound.</summary>
    public static void Run(IActorTurn first)
    {
        t_inTurn = true;
        try
        {
            var actor = first;
            for (var chained = 1; ; chained++)
            {
                actor.RunTurn();
                var next = t_runNext;
                if (next is null)
                {
                    return;
                }

                t_runNext = null;
                if (chained == MaxChained)
                {
                    ThreadPool.UnsafeQueueUserWorkItem(next, preferLocal: false);
                    return;
                }

                actor = next;
            }
        }
        finally
        {
            // A turn that threw out of here (it never should: handlers' exceptions are caught) must not strand the slot.
            if (t_runNext is { } stranded)
            {
                t_runNext = null;
                ThreadPool.UnsafeQueueUserWorkItem(stranded, preferLocal: false);
            }

            t_inTurn = false;
        }
    }
}
