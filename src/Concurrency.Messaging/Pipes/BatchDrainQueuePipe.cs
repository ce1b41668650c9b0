using System.Runtime.CompilerServices;
using Concurrency.Messaging.Internal;

namespace Concurrency.Messaging.Pipes;

/// <summary>
/// An array behind a spin lock, drained in one step: producers append under the lock; the consumer swaps the whole array for its
/// empty one and handles the batch outside the lock. When there is nothing to take it pauses, yields, then parks (see
/// <see cref="IdleWait"/>), and producers signal only a consumer that parked. Broadcast gives each consumer its own lane;
/// work-sharing shares one lane, each consumer taking its share of the backlog. With <see cref="PipeRunner.ThreadPool"/> each
/// consumer runs as turns on the thread pool instead (see <see cref="TurnRunner"/>): a lane's only consumer is scheduled by the
/// lane itself and takes a batch at a time (see <see cref="SoleLaneQueue"/>); consumers sharing a lane take one message at a time.
/// </summary>
internal sealed class BatchDrainQueuePipe<T>(IReadOnlyList<Action<T>> handlers, PipeOptions options)
    : LanedQueuePipe<T, BatchDrainLane<T>>(PipeKind.BatchDrainQueue, handlers, options)
{
    // The one-lane post, a direct call into the lane's queue: this class is sealed, so Post's call to TryPost is direct too,
    // and a post is one call through IPipe<T> (measured, a burst into a fresh pipe at one core: 8.5-9 ns a post through the
    // lane's interface and the base class's virtual TryPost).
    public override bool TryPost(T message) => DirectLane is { } lane ? lane.Queue.TryEnqueue(message) : base.TryPost(message);

    public override void Post(T message, CancellationToken cancellationToken = default)
    {
        cancellationToken.ThrowIfCancellationRequested();
        if (!TryPost(message))
        {
            throw new PipeClosedException();
        }
    }

    // Runs once per consumer for the pipe's whole life: compiled fully optimized from the start, not left in tier-0 or
    // on-stack-replacement code that a loop entered once would otherwise run in.
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    protected override void Consume(int consumer, BatchDrainLane<T> lane, Action<T> handler)
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

                CountHandled(consumer, handled);
                CountUnhandled(count - handled);
            }
            catch (Exception ex)
            {
                // The message at `handled` threw; it and the rest of the batch are not handled.
                CountHandled(consumer, handled);
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
            lanes[i].UseScheduledConsumer(new PooledConsumer<T, SoleLaneQueue>(this, i, new SoleLaneQueue(lanes[i]), handlers[i], options.MessagesPerTurn));
        }

        StartConsumers(handlers.Length);
    }

    /// <summary>
    /// A lane's only consumer, run as turns: the lane notes it idle under its lock and schedules it from the post (see
    /// <see cref="BatchDrainQueue{T}.Take"/>), and a take swaps out the whole backlog.
    /// </summary>
    /// <remarks>
    /// A consumer faster than its producer would take a few messages at a time, each take pulling the lane's lock line away
    /// from the producer, whose next post then waits for it: after a small take, on several cores, the consumer pauses
    /// about three microseconds so a batch builds up, as the dedicated consumer's pause does (a burst into a fresh pipe,
    /// 2 cores: the producer's post 10-13 ns without it, 9 ns with it). A lone message is not delayed: the pause comes
    /// after a take, before the next.
    /// </remarks>
    private struct SoleLaneQueue(BatchDrainLane<T> lane) : ITurnQueue<T>
    {
        private const int SmallTake = 64;  // a take of fewer messages than this makes the next one wait for more
        private const int BuildUp = 100;   // that wait, in Thread.SpinWait iterations (about 3 µs here)
        private static readonly bool s_paces = Environment.ProcessorCount > 1; // on one core the producer cannot run meanwhile
        private int _lastTaken; // the running turn only: what the last take took (0 after an empty, idle or final take)

        public TurnTake Take(ref Slot<T>[] batch, int most, bool idleIfEmpty, out int count, out T one)
        {
            if (s_paces && _lastTaken is > 0 and < SmallTake)
            {
                Thread.SpinWait(BuildUp);
            }

            var take = lane.Queue.Take(ref batch, most, idleIfEmpty, out count, out one);
            _lastTaken = take switch { TurnTake.Taken => count, TurnTake.TakenOne => 1, _ => 0 };
            return take;
        }

        public readonly bool HasWork() => lane.Queue.HasWork();

        public readonly bool TryClaimIdle() => false;
    }
}
