using Concurrency.Messaging.Internal;

namespace Concurrency.Messaging.Pipes;

/// <summary>
/// The 2011 design's queue, kept so it can be measured: a <see cref="Queue{T}"/> behind a
/// <see cref="ReaderWriterLockSlim"/> write lock, one message taken per lock acquisition. Broadcast gives each consumer its
/// own lane; work-sharing shares one lane. Its consumers wait as every pipe's do (a post schedules an idle consumer, see
/// <see cref="PipeConsumer{T, TQueue}"/>), no longer on the design's event set after every post: the event was a second
/// way to wait, and its work-sharing consumers could strand one another (one's reset swallowing the close's set).
/// </summary>
internal sealed class ReaderWriterLockQueuePipe<T>(IReadOnlyList<Action<T>> handlers, PipeOptions options)
    : LanedQueuePipe<T, ReaderWriterLockQueuePipe<T>.Lane>(PipeKind.ReaderWriterLockQueue, handlers, options)
{
    // Not disposed on purpose: a post after completion must return false, not throw ObjectDisposedException, and the lock's
    // wait handles are freed by their finalizers once the pipe is unreachable.
    [System.Diagnostics.CodeAnalysis.SuppressMessage("Design", "CA1001", Justification = "Late posts must not see a disposed lock.")]
    internal sealed class Lane : IQueueLane<T>
    {
        private readonly ReaderWriterLockSlim _lock = new(LockRecursionPolicy.NoRecursion);
        private readonly Queue<T> _queue = new(); // guarded by the write lock
        private bool _accepting = true;           // guarded by the write lock

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

            return true;
        }

        public void Close()
        {
            _lock.EnterWriteLock();
            _accepting = false;
            _lock.ExitWriteLock();
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
