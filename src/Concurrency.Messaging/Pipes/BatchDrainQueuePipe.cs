using System.Runtime.CompilerServices;

namespace Concurrency.Messaging.Pipes;

/// <summary>
/// An array behind a spin lock, drained in one step: producers append under the lock; the consumer swaps the whole array for its
/// empty one and handles the batch outside the lock. When there is nothing to take it pauses, yields, then parks (see
/// <see cref="IdleWait"/>), and producers signal only a consumer that parked. Broadcast gives each consumer its own lane;
/// work-sharing shares one lane, each consumer taking its share of the backlog.
/// </summary>
internal sealed class BatchDrainQueuePipe<T>(IReadOnlyList<Action<T>> handlers, PipeOptions options)
    : LanedQueuePipe<T, BatchDrainQueuePipe<T>.Lane>(PipeKind.BatchDrainQueue, handlers, options)
{
    // Runs once per consumer for the pipe's whole life: compiled fully optimized from the start, not left in tier-0 or
    // on-stack-replacement code that a loop entered once would otherwise run in.
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    protected override void Consume(Lane lane, Action<T> handler)
    {
        var batch = new Slot<T>[Lane.InitialCapacity];
        var spin = IdleWait.SpinsFor(ConsumerCount + ProducerCount);
        while (lane.TakeBatch(ref batch, ConsumersPerLane, spin, out var count))
        {
            var handled = 0;
            try
            {
                // Stopping is checked per message, so a fault or abort stops delivery mid-batch.
                for (; handled < count && !IsStopping; handled++)
                {
                    handler(batch[handled].Value);
                }

                CountUnhandled(count - handled);
            }
            catch (Exception ex)
            {
                // The message at `handled` threw; it and the rest of the batch are not handled.
                CountUnhandled(count - handled);
                Fault(ex);
            }

            Array.Clear(batch, 0, count); // the lane reuses this array: drop the references it still holds
        }
    }

    // The semaphore is not disposed on purpose: a post after completion must return false, not throw
    // ObjectDisposedException; it holds no kernel handle unless one is asked for.
    [System.Diagnostics.CodeAnalysis.SuppressMessage("Design", "CA1001", Justification = "Late posts must not see a disposed semaphore.")]
    internal sealed class Lane : IQueueLane<T>
    {
        public const int InitialCapacity = 256;

        /// <summary>The consumer's pause between looks (see <see cref="IdleWait"/>): long, so a batch builds up in between.</summary>
        private const int Pause = 200;

        private SpinGate _gate;                         // guards the fields below: each critical section is a few stores
        private readonly SemaphoreSlim _wake = new(0); // released once for each parked consumer a producer wakes
        private Slot<T>[] _items = new Slot<T>[InitialCapacity]; // guarded by _gate: the accepted messages are _items[_head.._count)
        private int _head;                             // guarded by _gate: where consumers sharing the lane take from
        private int _count;                            // written under _gate; read without it as a hint by an idle consumer
        private bool _accepting = true;                // guarded by _gate
        private volatile bool _closed;                 // set under _gate with _accepting: lets an idle consumer stop pausing
        private int _parked;                           // guarded by _gate: consumers parked (or about to) on _wake

        public bool TryEnqueue(T message)
        {
            int wake;
            _gate.Enter();
            try
            {
                if (!_accepting)
                {
                    return false;
                }

                if (_count == _items.Length)
                {
                    Array.Resize(ref _items, _items.Length * 2);
                }

                _items[_count].Value = message;
                Volatile.Write(ref _count, _count + 1);
                wake = TakeParked(1);
            }
            finally
            {
                _gate.Exit();
            }

            Wake(wake);
            return true;
        }

        public void Close()
        {
            int wake;
            _gate.Enter();
            try
            {
                _accepting = false;
                _closed = true;
                wake = TakeParked(int.MaxValue);
            }
            finally
            {
                _gate.Exit();
            }

            Wake(wake);
        }

        /// <summary>
        /// Waits until there is work or the lane is closed and empty: first pausing and yielding without the lock, watching
        /// the count, then parked on the semaphore (a producer that appends under the lock sees the park). A sole consumer
        /// swaps arrays with its empty batch; consumers sharing the lane each copy out a fair share, so one of them does
        /// not hoard the backlog.
        /// </summary>
        /// <returns><see langword="false"/> when the lane is closed and empty: the consumer exits.</returns>
        public bool TakeBatch(ref Slot<T>[] batch, int sharers, bool spin, out int count)
        {
            var wait = new IdleWait(spin);
            while (true)
            {
                if (Volatile.Read(ref _count) == 0 && !_closed && wait.Wait(Pause))
                {
                    continue;
                }

                var wake = 0;
                var closedAndEmpty = false;
                count = 0;
                _gate.Enter();
                try
                {
                    if (_count > _head)
                    {
                        count = Take(ref batch, sharers, out wake);
                    }
                    else if (!_accepting)
                    {
                        closedAndEmpty = true;
                    }
                    else
                    {
                        _parked++;
                    }
                }
                finally
                {
                    _gate.Exit();
                }

                if (count > 0)
                {
                    Wake(wake);
                    return true;
                }

                if (closedAndEmpty)
                {
                    return false;
                }

                _wake.Wait();
                wait.Reset();
            }
        }

        /// <summary>Under the gate: counts off up to <paramref name="most"/> parked consumers, for the caller to wake after leaving the gate.</summary>
        private int TakeParked(int most)
        {
            var wake = Math.Min(_parked, most);
            _parked -= wake;
            return wake;
        }

        /// <summary>Outside the gate: the semaphore takes its own lock, which must not be taken while others spin on ours.</summary>
        private void Wake(int consumers)
        {
            if (consumers > 0)
            {
                _wake.Release(consumers);
            }
        }

        /// <summary>Under the gate, with messages available.</summary>
        private int Take(ref Slot<T>[] batch, int sharers, out int wake)
        {
            wake = 0;
            if (sharers == 1)
            {
                var count = _count;
                (_items, batch) = (batch, _items);
                _count = 0;
                return count;
            }

            var available = _count - _head;
            var share = (available + sharers - 1) / sharers;
            if (batch.Length < share)
            {
                batch = new Slot<T>[Math.Max(share, batch.Length * 2)];
            }

            Array.Copy(_items, _head, batch, 0, share);
            Array.Clear(_items, _head, share);
            _head += share;
            if (_head == _count)
            {
                _head = 0;
                _count = 0;
            }
            else
            {
                // Leave the rest for the others; one of them may be parked.
                wake = TakeParked(1);
            }

            return share;
        }
    }
}
