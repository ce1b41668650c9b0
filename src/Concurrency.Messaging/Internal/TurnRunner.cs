using System.Diagnostics;
using System.Runtime.CompilerServices;

namespace Concurrency.Messaging.Internal;

/// <summary>
/// Runs a consumer over its <see cref="ITurnQueue{T}"/>, one of two ways (see <see cref="ITurnWait"/>): as turns on the .NET
/// thread pool (a pipe's pooled consumer, every actor's mailbox), or on a thread of its own that parks where a turn would
/// go idle (a pipe's dedicated consumer). Delivery, counting and faults are the same either way (<see cref="TurnDelivery"/>).
/// A post that finds the consumer idle schedules it once (its <see cref="ITurnQueue{T}"/> decides, so it is never scheduled
/// twice nor missed): a turn is queued, or the parked thread woken. A turn takes and hands over up to its owner's budget,
/// then queues the next turn itself if more is waiting (the yield), or goes idle. At most one turn of a consumer is queued
/// or running at a time (or its one thread runs it), so what the consumer keeps for its turns needs no lock.
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
    /// run-next slot, up to <see cref="MaxChained"/>. A turn <typeparamref name="TDirect"/> takes (the starting consumer's
    /// own type, as a ring or a request and its reply chain actors of one type) is a direct call; any other goes through
    /// <see cref="ITurn"/>.
    /// </summary>
    // Compiled fully optimised at its first call. Tiered, it was among the last methods of an actor's path the runtime
    // promoted in a fresh process (its loop of at most 256 turns never reaches on-stack replacement), and its instrumented
    // tier-0 code ran every chain for up to a second: the actors' ping-pong with one message in flight went at a third to
    // a half of its speed through a game's first runs (results/issue-40-abba/cold-fix-2). Profile-guided code turned the
    // turn's interface call into a direct one, which steady play needs; TDirect makes that call direct here.
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public static void RunChained<TDirect>(ITurn first)
        where TDirect : struct, IDirectTurn
    {
        t_inTurn = true;
        try
        {
            var turn = first;
            for (var chained = 1; ; chained++)
            {
                if (!TDirect.TryRunTurn(turn))
                {
                    turn.RunTurn();
                }

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
    public static void Run<T, TQueue, TOwner>(ITurn self, ref TQueue queue, ref TOwner owner, ref TurnBatch<T> batch, int budget)
        where TQueue : struct, ITurnQueue<T>
        where TOwner : struct, ITurnOwner<T>
    {
        var pool = new PoolWait(self);
        Run<T, TQueue, TOwner, PoolWait>(ref queue, ref owner, ref batch, budget, ref pool);
    }

    /// <summary>
    /// Runs a consumer on the calling thread, which it holds until the consumer ends. It starts idle, as a pooled consumer
    /// does: it parks until the first post (or the close) schedules it; then it takes and hands over as a turn does, giving
    /// its count to the owner every <paramref name="countEvery"/> messages and whenever the queue runs dry, and parks where
    /// a turn would go idle. Returns when the queue is completed or has failed. The owner never suspends (a pipe's handler
    /// returns before the next message): a suspended turn ends, and would end the thread with it.
    /// </summary>
    public static void RunOnThread<T, TQueue, TOwner>(ref TQueue queue, ref TOwner owner, ref TurnBatch<T> batch, int countEvery, ref ThreadWait wait)
        where TQueue : struct, ITurnQueue<T>
        where TOwner : struct, ITurnOwner<T>
    {
        wait.WaitUntilScheduled();
        Run<T, TQueue, TOwner, ThreadWait>(ref queue, ref owner, ref batch, countEvery, ref wait);
        Debug.Assert(!owner.IsSuspended, "A consumer on its own thread never suspends.");
    }

    /// <summary>
    /// The runner: hands over what is in hand, then takes and hands over, up to <paramref name="budget"/> messages, after
    /// which <typeparamref name="TWait"/> yields the thread or goes on; a queue found empty is watched the wait's way, and a
    /// take that marks the consumer idle ends the turn (pool) or parks the thread until the consumer is scheduled (thread).
    /// The queue completing or failing ends it for good, through the owner.
    /// </summary>
    /// <remarks>
    /// What was handled is counted in a local and given to the owner (<see cref="ITurnOwner{T}.Handled"/>) before any act
    /// that may let the next turn start on another thread (a yield, a take that may go idle, a suspension, the end), so the
    /// owner's count has one writer at a time and costs a plain add once per turn or batch, never per message. Every call on
    /// <typeparamref name="TQueue"/>, <typeparamref name="TOwner"/> and <typeparamref name="TWait"/> is a direct call: all
    /// three are structs, and this method is compiled for each.
    /// </remarks>
    // Compiled fully optimised at its first call, for each queue and owner: a dedicated consumer enters this loop once, and a
    // short program would otherwise run it, and the delivery and take below, as tier-0 and on-stack-replacement code to its end.
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private static void Run<T, TQueue, TOwner, TWait>(ref TQueue queue, ref TOwner owner, ref TurnBatch<T> batch, int budget, ref TWait wait)
        where TQueue : struct, ITurnQueue<T>
        where TOwner : struct, ITurnOwner<T>
        where TWait : struct, ITurnWait
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
                    TurnDelivery.CountHandled<T, TOwner>(ref owner, ref handled);
                    if (!wait.GoOnAfterBudget())
                    {
                        return; // the budget is spent with messages in hand: the next turn starts with them
                    }

                    left = budget;
                }

                var start = batch.Next;
                handled += TurnDelivery.DeliverBatch(ref owner, batch.Items, ref batch.Next, Math.Min(batch.Count, start + left));
                left -= batch.Next - start;
                if (owner.IsSuspended)
                {
                    TurnDelivery.CountHandled<T, TOwner>(ref owner, ref handled);
                    owner.Suspended();
                    return;
                }

                continue;
            }

            batch.Reset();
            if (left <= 0)
            {
                TurnDelivery.CountHandled<T, TOwner>(ref owner, ref handled);
                if (!wait.GoOnAfterBudget())
                {
                    return; // the budget is spent: the thread goes to other work and the consumer comes back
                }

                left = budget;
            }

            TurnTake take;
            T one;
            var idleIfEmpty = !owner.LooksBeforeIdle;
            try
            {
                if (idleIfEmpty)
                {
                    TurnDelivery.CountHandled<T, TOwner>(ref owner, ref handled); // this take may go idle, and the next turn start at once
                }

                take = queue.Take(ref batch.Items, left, idleIfEmpty, out batch.Count, out one);
                if (take == TurnTake.Empty)
                {
                    // Look again for a while, the wait's way, then take once more, going idle if the wait says so; the
                    // look found work or it did not, and the take decides either way.
                    TurnDelivery.CountHandled<T, TOwner>(ref owner, ref handled);
                    idleIfEmpty = wait.LookBeforeIdle<T, TQueue>(ref queue);
                    take = queue.Take(ref batch.Items, left, idleIfEmpty, out batch.Count, out one);
                }
            }
            catch (Exception queueFailure)
            {
                // Handlers' exceptions never get here (the delivery catches them): this is the queue itself failing. Thrown
                // out of a pool work item (or a consumer's thread) it would end the process; the owner ends the consumer
                // with it instead.
                batch.Count = 0;
                TurnDelivery.CountHandled<T, TOwner>(ref owner, ref handled);
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
                    if (TurnDelivery.DeliverOne(ref owner, in one))
                    {
                        handled++;
                    }

                    if (owner.IsSuspended)
                    {
                        TurnDelivery.CountHandled<T, TOwner>(ref owner, ref handled);
                        owner.Suspended();
                        return;
                    }

                    break;
                case TurnTake.Idle:
                    Debug.Assert(handled == 0, "The count was given to the owner before the take that went idle.");
                    if (!wait.WaitUntilScheduled())
                    {
                        return; // the next post schedules a turn, which may have started already: touch nothing more
                    }

                    break; // the thread was parked, and the post that claimed the idle consumer woke it: it holds it again
                case TurnTake.Completed:
                    TurnDelivery.CountHandled<T, TOwner>(ref owner, ref handled);
                    owner.Completed();
                    return;
                default:
                    // Empty from a take not asked to mark the consumer idle: a thread's look saw work that was gone (or not
                    // there yet) when it took, and looks again. A pool turn always asks, so it never gets here; if it did, the
                    // consumer still holds its turn, so it comes back later rather than end a consumer whose queue may still
                    // get messages.
                    Debug.Assert(!idleIfEmpty, "A take marking idle never says Empty.");
                    TurnDelivery.CountHandled<T, TOwner>(ref owner, ref handled);
                    if (!wait.GoOnAfterBudget())
                    {
                        return;
                    }

                    break;
            }
        }
    }

    /// <summary>
    /// The pool's way to wait: a spent budget puts the consumer at the back of the pool's queue (fairness first), a queue found
    /// empty is looked at a little (<see cref="IdleWait.LookBeforeIdle"/>) before the take that goes idle, and going idle ends
    /// the turn: the next post schedules the next one.
    /// </summary>
    private readonly struct PoolWait(ITurn self) : ITurnWait
    {
        public bool GoOnAfterBudget()
        {
            ThreadPool.UnsafeQueueUserWorkItem(self, preferLocal: false);
            return false;
        }

        public bool LookBeforeIdle<T, TQueue>(ref TQueue queue)
            where TQueue : struct, ITurnQueue<T>
        {
            IdleWait.LookBeforeIdle<T, TQueue>(ref queue);
            return true;
        }

        public bool WaitUntilScheduled() => false;
    }
}

/// <summary>
/// The turns a chain (<see cref="TurnRunner.RunChained{TDirect}"/>) runs by a direct call: a struct whose
/// <see cref="TryRunTurn"/> runs a turn of one known sealed type, so that the chain's loop is compiled for that type.
/// </summary>
internal interface IDirectTurn
{
    /// <summary>Runs <paramref name="turn"/>'s turn if it is of the known type.</summary>
    /// <returns>Whether it was (and ran).</returns>
    static abstract bool TryRunTurn(ITurn turn);
}
