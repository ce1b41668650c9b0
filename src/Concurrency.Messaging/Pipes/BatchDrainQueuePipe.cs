using System.Runtime.CompilerServices;

namespace Concurrency.Messaging.Pipes;

/// <summary>
/// An array behind a spin lock, drained in one step: producers append under the lock; the consumer swaps the whole array for its
/// empty one and handles the batch outside the lock. When there is nothing to take it pauses, yields, then parks (see
/// <see cref="IdleWait"/>), and producers signal only a consumer that parked. Broadcast gives each consumer its own lane;
/// work-sharing shares one lane, each consumer taking its share of the backlog. With <see cref="PipeRunner.ThreadPool"/> each
/// consumer runs as turns on the thread pool instead: a lane's only consumer is scheduled by the lane itself and takes a
/// batch at a time (see <see cref="ScheduledConsumer"/>); consumers sharing a lane take one message at a time.
/// </summary>
internal sealed class BatchDrainQueuePipe<T>(IReadOnlyList<Action<T>> handlers, PipeOptions options)
    : LanedQueuePipe<T, BatchDrainLane<T>>(PipeKind.BatchDrainQueue, handlers, options)
{
    // Runs once per consumer for the pipe's whole life: compiled fully optimized from the start, not left in tier-0 or
    // on-stack-replacement code that a loop entered once would otherwise run in.
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    protected override void Consume(BatchDrainLane<T> lane, Action<T> handler)
    {
        var batch = new Slot<T>[BatchDrainQueue<T>.InitialCapacity];
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

    protected override void StartConsumers(BatchDrainLane<T>[] lanes, Action<T>[] handlers, PipeOptions options)
    {
        if (Pipe.RunnerOf(Kind, options) != PipeRunner.ThreadPool || ConsumersPerLane > 1)
        {
            // Dedicated threads, or pooled consumers sharing one lane: those take one message at a time (TryTakeNow).
            base.StartConsumers(lanes, handlers, options);
            return;
        }

        // Broadcast (or a single consumer): one lane per consumer, drained a batch at a time. Nothing is posted yet. The
        // consumers are in place before the abort token is registered: one already cancelled closes the lanes at once,
        // and each lane's close schedules its idle consumer.
        for (var i = 0; i < handlers.Length; i++)
        {
            lanes[i].UseScheduledConsumer(new ScheduledConsumer(this, lanes[i], handlers[i], options.MessagesPerTurn));
        }

        StartConsumers(handlers.Length);
    }

    /// <summary>
    /// A consumer run as turns on the thread pool. The lane schedules a turn when a post finds the consumer idle (or the lane
    /// closes); a turn handles up to its budget, then queues the next turn itself if there is more, or tells the lane it is
    /// idle. At most one turn of a consumer is queued or running at a time, so its fields need no lock.
    /// </summary>
    private sealed class ScheduledConsumer(BatchDrainQueuePipe<T> pipe, BatchDrainLane<T> lane, Action<T> handler, int budget)
        : IScheduledConsumer, IThreadPoolWorkItem
    {
        private Slot<T>[] _batch = [];  // owned by the running turn: messages taken but not yet handled are _batch[_next.._count)
        private int _next;              // owned by the running turn
        private int _count;             // owned by the running turn

        public void Schedule() => ThreadPool.UnsafeQueueUserWorkItem(this, preferLocal: false);

        public void Execute()
        {
            pipe.BeginConsuming();
            try
            {
                RunTurn();
            }
            finally
            {
                EndConsuming();
            }
        }

        private void RunTurn()
        {
            var left = budget;
            while (true)
            {
                if (_next == _count)
                {
                    Array.Clear(_batch, 0, _count); // the lane reuses this array: drop the references it still holds
                    _next = 0;
                    _count = 0;
                    if (left == 0)
                    {
                        Schedule(); // the turn's budget is spent: yield the thread to other work and come back
                        return;
                    }

                    // On several cores, look a little before the take that would mark this consumer idle (see IdleWait).
                    if (lane.LooksIdle())
                    {
                        IdleWait.LookBeforeIdle(static l => !l.LooksIdle(), lane);
                    }

                    switch (lane.TryTake(ref _batch, out _count, out var one))
                    {
                        case LaneTake.Idle:
                            return; // the next post schedules a turn
                        case LaneTake.Completed:
                            pipe.ConsumerExited();
                            return;
                        case LaneTake.TakenOne:
                            left--;
                            pipe.Deliver(handler, one);
                            continue;
                    }
                }

                if (left == 0)
                {
                    Schedule(); // more is waiting: yield the thread to other work and come back
                    return;
                }

                var end = Math.Min(_count, _next + left);
                left -= end - _next;
                try
                {
                    // Stopping is checked per message, so a fault or abort stops delivery mid-batch.
                    for (; _next < end && !pipe.IsStopping; _next++)
                    {
                        handler(_batch[_next].Value);
                    }

                    pipe.CountUnhandled(end - _next);
                }
                catch (Exception ex)
                {
                    // The message at _next threw; it and the rest of this turn's share are not handled.
                    pipe.CountUnhandled(end - _next);
                    pipe.Fault(ex);
                }

                _next = end;
            }
        }
    }
}
