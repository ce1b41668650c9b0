using System.Runtime.CompilerServices;
using Concurrency.Messaging.Internal;

namespace Concurrency.Messaging.Pipes;

/// <summary>
/// The 2011 design, kept faithful so it can be measured: a <see cref="Queue{T}"/> behind a
/// <see cref="ReaderWriterLockSlim"/> write lock, one message taken per lock acquisition, and an event the producer
/// sets after every post. Broadcast gives each consumer its own lane; work-sharing shares one lane. Under
/// <see cref="PipeRunner.ThreadPool"/> nobody waits on the event: a post notifies the lane's pooled consumer instead.
/// </summary>
internal sealed class ReaderWriterLockQueuePipe<T>(IReadOnlyList<Action<T>> handlers, PipeOptions options)
    : LanedQueuePipe<T, ReaderWriterLockQueuePipe<T>.Lane>(PipeKind.ReaderWriterLockQueue, handlers, options)
{
    // Runs once per consumer for the pipe's whole life: compiled fully optimized from the start, not left in tier-0 or
    // on-stack-replacement code that a loop entered once would otherwise run in.
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    protected override void Consume(int consumer, Lane lane, Action<T> handler)
    {
        while (lane.TryTake(out var message))
        {
            Deliver(consumer, handler, message);
        }
    }

    // Not disposed on purpose: a post after completion must return false, not throw ObjectDisposedException, and the lock's
    // and event's wait handles are freed by their finalizers once the pipe is unreachable.
    [System.Diagnostics.CodeAnalysis.SuppressMessage("Design", "CA1001", Justification = "Late posts must not see a disposed lock.")]
    internal sealed class Lane : IQueueLane<T>
    {
        private readonly ReaderWriterLockSlim _lock = new(LockRecursionPolicy.NoRecursion);
        private readonly Queue<T> _queue = new();                  // guarded by the write lock
        private readonly ManualResetEventSlim _posted = new(false); // set by producers after every post; reset by a consumer before it re-checks
        private bool _accepting = true;                             // guarded by the write lock

        public bool TryEnqueue(T message)
        {
            _lock.EnterWriteLock();
            try
            {
                if (!_accepting)
                {
                    return false;
                }

                _queue.Enqueue(message);
            }
            finally
            {
                _lock.ExitWriteLock();
            }

            _posted.Set();
            return true;
        }

        public void Close()
        {
            _lock.EnterWriteLock();
            _accepting = false;
            _lock.ExitWriteLock();
            _posted.Set();
        }

        /// <returns><see langword="false"/> when the lane is closed and empty: the consumer exits.</returns>
        /// <remarks>
        /// Work-sharing consumers share the event, so one consumer's reset can clear the close's set after another consumer
        /// made its second look and before it waits: that one would then sleep forever. So a consumer that sees the lane
        /// closed sets the event again before it exits; every reset after the close is followed by such a look, so the
        /// event ends set and every waiter wakes. (A reset that swallows a post's set is harmless: the resetting consumer's
        /// second look takes that message.)
        /// </remarks>
        public bool TryTake(out T message)
        {
            while (true)
            {
                if (TryDequeue(out message, out var closed))
                {
                    return true;
                }

                if (!closed)
                {
                    // Reset, then look again: a post that lands after the second look sets the event and the wait returns.
                    _posted.Reset();
                    if (TryDequeue(out message, out closed))
                    {
                        return true;
                    }
                }

                if (closed)
                {
                    _posted.Set();
                    return false;
                }

                _posted.Wait();
            }
        }

        public TurnTake TryTakeNow(out T message)
        {
            if (TryDequeue(out message, out var closed))
            {
                return TurnTake.TakenOne;
            }

            return closed ? TurnTake.Completed : TurnTake.Empty;
        }

        public bool HasWork()
        {
            _lock.EnterWriteLock();
            try
            {
                return _queue.Count > 0 || !_accepting;
            }
            finally
            {
                _lock.ExitWriteLock();
            }
        }

        private bool TryDequeue(out T message, out bool closed)
        {
            _lock.EnterWriteLock();
            try
            {
                closed = !_accepting;
                return _queue.TryDequeue(out message!);
            }
            finally
            {
                _lock.ExitWriteLock();
            }
        }
    }
}
