using System.Diagnostics;

namespace Concurrency.Messaging.Internal;

/// <summary>
/// Runs consumers as turns on the .NET thread pool: every pooled pipe consumer (a pipe's ThreadPool runner) and every
/// actor's mailbox. A post that finds the consumer idle schedules one turn (its <see cref="ITurnQueue{T}"/> decides, so a
/// turn is never queued twice nor missed); a turn takes and hands over up to its owner's budget, then queues the next turn
/// itself if more is waiting (the yield), or goes idle. At most one turn of a consumer is queued or running at a time, so
/// what the consumer keeps for its turns needs no lock.
/// </summary>
/// <remarks>
/// <para>
/// The run-next slot, taken from Go's scheduler ("runnext"): a consumer that allows it (an actor), woken by a turn running
/// on this thread that allows it too, runs next on this thread, right after that turn, instead of going through the pool's
/// queues. A message passed along a chain of actors (a ring, a request and its reply) then costs no queueing and no thread
/// wake-up per hop. Only one consumer waits in the slot; any other goes to the pool. A chain is cut after
/// <see cref="MaxChained"/> turns and its next turn goes to the pool, so no chain holds a thread forever.
/// </para>
/// <para>
/// Pipes do not use the slot: their consumers are woken by producers outside any turn, where it cannot apply, and a pipe
/// turn that counted as "in a turn" would make a handler's <c>Tell</c> into a full actor mailbox throw instead of waiting.
/// </para>
/// </remarks>
internal static class TurnRunner
{
    /// <summary>The most turns one pool work item runs back to back before the next goes to the pool.</summary>
    public const int MaxChained = 256;

    [ThreadStatic]
    private static bool t_inTurn;   // this thread runs a chaining turn: a woken consumer that allows it may wait in t_runNext

    [ThreadStatic]
    private static ITurn? t_runNext; // the consumer to run when the current turn ends; this thread only

    /// <summary>Gets whether this thread runs a chaining turn (an actor's), where nothing may block waiting for another actor.</summary>
    public static bool InTurn => t_inTurn;

    /// <summary>Queues the turn of a consumer that just went from idle to having work.</summary>
    /// <param name="turn">The consumer.</param>
    /// <param name="mayRunNext">Whether it may take this thread's run-next slot (see the remarks).</param>
    public static void Schedule(ITurn turn, bool mayRunNext)
    {
        if (mayRunNext && t_inTurn && t_runNext is null)
        {
            t_runNext = turn;
            return;
        }

        ThreadPool.UnsafeQueueUserWorkItem(turn, preferLocal: false);
    }

    /// <summary>
    /// Producer side, for a queue with an <see cref="IdleFlag"/>, after its message (or the close) is in the queue: schedules
    /// the consumer if it is idle. Any thread, any number at once; a busy consumer costs one fence and one read.
    /// </summary>
    public static void WakeIfIdle<T, TQueue>(ITurn turn, ref TQueue queue, bool mayRunNext)
        where TQueue : struct, ITurnQueue<T>
    {
        Interlocked.MemoryBarrier(); // the message (or the close) is visible before the flag is read: see IdleFlag
        if (queue.TryClaimIdle())
        {
            Schedule(turn, mayRunNext);
        }
    }

    /// <summary>
    /// Runs <paramref name="first"/>'s turn as the pool's work item, then the turns it (and each next one) woke into the
    /// run-next slot, up to <see cref="MaxChained"/>.
    /// </summary>
    public static void RunChained(ITurn first)
    {
        t_inTurn = true;
        try
        {
            var turn = first;
            for (var chained = 1; ; chained++)
            {
                turn.RunTurn();
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

                turn = next;
            }
        }
        finally
        {
            // A turn that threw out of here (it never should: handlers' and queues' exceptions are caught) must not strand the slot.
            if (t_runNext is { } stranded)
            {
                t_runNext = null;
                ThreadPool.UnsafeQueueUserWorkItem(stranded, preferLocal: false);
            }

            t_inTurn = false;
        }
    }

    /// <summary>
    /// One turn of <paramref name="self"/>: hands over what its last turn left, then takes and hands over, up to
    /// <paramref name="budget"/> messages; then yields if more may be waiting, or ends as the queue says (idle, completed)
    /// or as the owner says (suspended). A queue's exception ends the consumer through the owner, never the process.
    /// </summary>
    /// <remarks>
    /// What was handled is counted in a local and given to the owner (<see cref="ITurnOwner{T}.Handled"/>) before any act
    /// that may let the next turn start on another thread (a yield, a take that may go idle, a suspension, the end), so the
    /// owner's count has one writer at a time and costs a plain add once per turn or batch, never per message.
    /// </remarks>
    public static void Run<T, TQueue, TOwner>(ITurn self, ref TQueue queue, ref TOwner owner, ref TurnBatch<T> batch, int budget)
        where TQueue : struct, ITurnQueue<T>
        where TOwner : struct, ITurnOwner<T>
    {
        Debug.Assert(budget > 0, "A turn handles at least one message.");
        var left = budget;
        var handled = 0; // handed over and returned, not yet given to the owner
        while (true)
        {
            if (batch.Next < batch.Count)
            {
                if (left <= 0)
                {
                    CountHandled<T, TOwner>(ref owner, ref handled);
                    Yield(self); // the budget is spent with messages in hand: the next turn starts with them
                    return;
                }

                var start = batch.Next;
                handled += DeliverBatch(ref owner, batch.Items, ref batch.Next, Math.Min(batch.Count, start + left));
                left -= batch.Next - start;
                if (owner.IsSuspended)
                {
                    CountHandled<T, TOwner>(ref owner, ref handled);
                    owner.Suspended();
                    return;
                }

                continue;
            }

            batch.Reset();
            if (left <= 0)
            {
                CountHandled<T, TOwner>(ref owner, ref handled);
                Yield(self); // the budget is spent: give the thread to other work and come back
                return;
            }

            TurnTake take;
            T one;
            try
            {
                var idleIfEmpty = !owner.LooksBeforeIdle;
                if (idleIfEmpty)
                {
                    CountHandled<T, TOwner>(ref owner, ref handled); // this take may go idle, and the next turn start at once
                }

                take = queue.Take(ref batch.Items, left, idleIfEmpty, out batch.Count, out one);
                if (take == TurnTake.Empty)
                {
                    // On several cores, look a little before going idle (see IdleWait), then take once more, going idle if
                    // still empty; the look found work or it did not, and the take decides either way.
                    CountHandled<T, TOwner>(ref owner, ref handled);
                    IdleWait.LookBeforeIdle<T, TQueue>(ref queue);
                    take = queue.Take(ref batch.Items, left, idleIfEmpty: true, out batch.Count, out one);
                }
            }
            catch (Exception queueFailure)
            {
                // Handlers' exceptions never get here (the delivery catches them): this is the queue itself failing. Thrown
                // out of a pool work item it would end the process; the owner ends the consumer with it instead.
                batch.Count = 0;
                CountHandled<T, TOwner>(ref owner, ref handled);
                owner.QueueFailed(queueFailure);
                return;
            }

            switch (take)
            {
                case TurnTake.Taken:
                    Debug.Assert(batch.Count > 0, "A take that took nothing says Empty, Idle or Completed.");
                    break;
                case TurnTake.TakenOne:
                    left--;
                    if (DeliverOne(ref owner, in one))
                    {
                        handled++;
                    }

                    if (owner.IsSuspended)
                    {
                        CountHandled<T, TOwner>(ref owner, ref handled);
                        owner.Suspended();
                        return;
                    }

                    break;
                case TurnTake.Idle:
                    Debug.Assert(handled == 0, "The count was given to the owner before the take that went idle.");
                    return; // the next post schedules a turn, which may have started already: touch nothing more
                case TurnTake.Completed:
                    CountHandled<T, TOwner>(ref owner, ref handled);
                    owner.Completed();
                    return;
                default:
                    // A take asked to mark the consumer idle never says Empty; if one did, the consumer still holds its
                    // turn, so come back later rather than end a consumer whose queue may still get messages.
                    Debug.Fail("A take marking idle never says Empty.");
                    CountHandled<T, TOwner>(ref owner, ref handled);
                    Yield(self);
                    return;
            }
        }
    }

    /// <summary>Gives the turn's count so far to the owner: once per turn or batch, before the turn lets go of the consumer.</summary>
    private static void CountHandled<T, TOwner>(ref TOwner owner, ref int handled)
        where TOwner : struct, ITurnOwner<T>
    {
        if (handled != 0)
        {
            owner.Handled(handled);
            handled = 0;
        }
    }

    /// <summary>Puts a consumer that may still have work after a full turn at the back of the pool's queue: fairness first.</summary>
    private static void Yield(ITurn self) => ThreadPool.UnsafeQueueUserWorkItem(self, preferLocal: false);

    /// <summary>
    /// The deliver-count-fault loop: hands <c>batch[next..end)</c> over while the owner is not stopping; a handler's throw
    /// goes to the owner (fault or supervision) and delivery goes on past the message that threw; once stopping, the rest
    /// is counted off. Returns early if a handler suspended the turn.
    /// </summary>
    /// <returns>How many messages were handed over and returned (the one that threw, and those counted off, excluded).</returns>
    private static int DeliverBatch<T, TOwner>(ref TOwner owner, Slot<T>[] batch, ref int next, int end)
        where TOwner : struct, ITurnOwner<T>
    {
        var handled = 0;
        while (next < end)
        {
            if (owner.IsStopping)
            {
                owner.Unhandled(batch, next, end);
                next = end;
                return handled;
            }

            var start = next;
            try
            {
                owner.Deliver(batch, ref next, end);
                handled += next - start;
            }
            catch (Exception ex)
            {
                // The contract moves next past a message before handing it over; an owner that threw before it did
                // must not get the same message again, or a restarting actor would fail on it for ever.
                if (next == start)
                {
                    next++;
                }

                handled += next - start - 1; // next is past the message that threw
                owner.Failed(ex);
            }

            if (owner.IsSuspended)
            {
                return handled;
            }
        }

        return handled;
    }

    /// <summary>The deliver-count-fault loop for one message.</summary>
    /// <returns>Whether it was handed over and returned.</returns>
    private static bool DeliverOne<T, TOwner>(ref TOwner owner, in T message)
        where TOwner : struct, ITurnOwner<T>
    {
        if (owner.IsStopping)
        {
            owner.UnhandledOne(in message);
            return false;
        }

        try
        {
            owner.DeliverOne(in message);
            return true;
        }
        catch (Exception ex)
        {
            owner.Failed(ex);
            return false;
        }
    }
}
