namespace Concurrency.Messaging.Pipes;

/// <summary>
/// A <see cref="Queue{T}"/> behind a monitor. The consumer swaps the whole queue out in one step and handles the
/// batch outside the lock; it parks only when the queue is empty, and producers pulse only when someone is parked.
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

    internal sealed class Lane : IQueueLane<T>
    {
        private readonly object _gate = new();
        private Queue<T> _queue = new();   // guarded by _gate; swapped out whole by a single-consumer lane
        private bool _accepting = true;    // guarded by _gate
        private int _parked;               // guarded by _gate: consumers in Monitor.Wait

        public bool TryEnqueue(T message)
        {
            lock (_gate)
            {
                if (!_accepting)
                {
                    return false;
                }

                _queue.Enqueue(message);
                if (_parked > 0)
                {
                    Monitor.Pulse(_gate);
                }

                return true;
            }
        }

        public void Close()
        {
            lock (_gate)
            {
                _accepting = false;
                Monitor.PulseAll(_gate);
            }
        }

        /// <summary>
        /// Parks until there is work or the lane is closed and empty. A sole consumer swaps queues with its empty
        /// batch; consumers sharing the lane each take a fair share so one of them does not hoard the backlog.
        /// </summary>
        /// <returns><see langword="false"/> when the lane is closed and empty: the consumer exits.</returns>
        public bool TakeBatch(ref Queue<T> batch, int sharers)
        {
            lock (_gate)
            {
                while (_queue.Count == 0)
                {
                    if (!_accepting)
                    {
                        return false;
                    }

                    _parked++;
                    Monitor.Wait(_gate);
                    _parked--;
                }

                if (sharers == 1)
                {
                    (_queue, batch) = (batch, _queue);
                }
                else
                {
                    var share = (_queue.Count + sharers - 1) / sharers;
                    for (var i = 0; i < share; i++)
                    {
                        batch.Enqueue(_queue.Dequeue());
                    }

                    // Leave the rest for the others; they may be parked.
                    if (_queue.Count > 0 && _parked > 0)
                    {
                        Monitor.Pulse(_gate);
                    }
                }

                return true;
            }
        }
    }
}
