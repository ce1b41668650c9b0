namespace Concurrency.Messaging.Pipes;

/// <summary>
/// A <see cref="Queue{T}"/> behind a lock. The consumer swaps the whole queue out in one step and handles the batch outside
/// the lock; when the queue is empty it pauses, yields, then parks (see <see cref="IdleWait"/>), and producers signal only a consumer that parked.
/// Broadcast gives each consumer its own lane; work-sharing shares one lane, each consumer taking its share of the backlog.
/// </summary>
internal sealed class BatchDrainQueuePipe<T>(IReadOnlyList<Action<T>> handlers, PipeOptions options)
    : LanedQueuePipe<T, BatchDrainQueuePipe<T>.Lane>(PipeKind.BatchDrainQueue, handlers, options)
{
    protected override void Consume(Lane lane, Action<T> handler)
    {
        var batch = new Queue<T>();
        while (lane.TakeBatch(ref batch, ConsumersPerLane))
        {
            try
            {
                while (batch.TryDequeue(out var message))
                {
                    if (IsStopping)
                    {
                        CountUnhandled(batch.Count + 1);
                        batch.Clear();
                        break;
                    }

                    handler(message);
                }
            }
            catch (Exception ex)
            {
                CountUnhandled(batch.Count + 1);
                batch.Clear();
                Fault(ex);
            }
        }
    }

    // The semaphore is not disposed on purpose: a post after completion must return false, not throw
    // ObjectDisposedException; it holds no kernel handle unless one is asked for.
    [System.Diagnostics.CodeAnalysis.SuppressMessage("Design", "CA1001", Justification = "Late posts must not see a disposed semaphore.")]
    internal sealed class Lane : IQueueLane<T>
    {
        /// <summary>The consumer's pause between looks (see <see cref="IdleWait"/>): long, so a batch builds up in between.</summary>
        private const int Pause = 200;

        private readonly Lock _gate = new();
        private readonly SemaphoreSlim _wake = new(0);  // released once for each parked consumer a producer wakes
        private Queue<T> _queue = new();                // guarded by _gate; swapped out whole by a single-consumer lane
        private bool _accepting = true;                 // guarded by _gate
        private int _parked;                            // guarded by _gate: consumers parked (or about to) on _wake
        private volatile int _pending;                  // written under _gate: the queue's length after the last change,
                                                        // read without the lock by a consumer deciding whether to keep waiting

        public bool TryEnqueue(T message)
        {
            lock (_gate)
            {
                if (!_accepting)
                {
                    return false;
                }

                _queue.Enqueue(message);
                _pending = _queue.Count;
                if (_parked > 0)
                {
                    _parked--;
                    _wake.Release();
                }

                return true;
            }
        }

        public void Close()
        {
            lock (_gate)
            {
                _accepting = false;
                _pending = -1; // wakes spinning consumers: there is something to look at
                if (_parked > 0)
                {
                    _wake.Release(_parked);
                    _parked = 0;
                }
            }
        }

        /// <summary>
        /// Waits until there is work or the lane is closed and empty: first pausing and yielding without the lock, watching
        /// the queue's length, then parked on the semaphore (a producer that enqueues under the lock sees the park). A sole consumer swaps queues with its empty batch; consumers sharing the lane each take a fair share so
        /// one of them does not hoard the backlog.
        /// </summary>
        /// <returns><see langword="false"/> when the lane is closed and empty: the consumer exits.</returns>
        public bool TakeBatch(ref Queue<T> batch, int sharers)
        {
            var wait = default(IdleWait);
            while (true)
            {
                if (_pending == 0 && wait.Wait(Pause))
                {
                    continue;
                }

                lock (_gate)
                {
                    if (_queue.Count > 0)
                    {
                        Take(ref batch, sharers);
                        _pending = _accepting ? _queue.Count : -1;
                        return true;
                    }

                    if (!_accepting)
                    {
                        return false;
                    }

                    _parked++;
                }

                _wake.Wait();
                wait.Reset();
            }
        }

        private void Take(ref Queue<T> batch, int sharers)
        {
            if (sharers == 1)
            {
                (_queue, batch) = (batch, _queue);
                return;
            }

            var share = (_queue.Count + sharers - 1) / sharers;
            for (var i = 0; i < share; i++)
            {
                batch.Enqueue(_queue.Dequeue());
            }

            // Leave the rest for the others; one of them may be parked.
            if (_queue.Count > 0 && _parked > 0)
            {
                _parked--;
                _wake.Release();
            }
        }
    }
}
