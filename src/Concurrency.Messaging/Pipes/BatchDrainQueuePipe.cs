using System.Runtime.CompilerServices;
using Concurrency.Messaging.Internal;

namespace Concurrency.Messaging.Pipes;

/// <summary>
/// An array behind a spin lock, drained in one step: producers append under the lock; the consumer swaps the whole array for its
/// empty one and handles the batch outside the lock. Broadcast gives each consumer its own lane, whose only consumer the lane
/// schedules itself and which takes a batch at a time (see <see cref="SoleLaneQueue"/>); work-sharing shares one lane, and
/// its consumers take one message at a time. On a dedicated thread a consumer with nothing to take pauses, yields, then
/// parks (see <see cref="ThreadWait"/>), and a producer wakes only a consumer that went idle.
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

    protected override void StartConsumers(BatchDrainLane<T>[] lanes, Action<T>[] handlers, PipeOptions options)
    {
        if (ConsumersPerLane > 1)
        {
            // Consumers sharing one lane take one message at a time (TryTakeNow) and are scheduled by the pipe.
            base.StartConsumers(lanes, handlers, options);
            return;
        }

        // Broadcast (or a single consumer): one lane per consumer, drained a batch at a time and scheduling its consumer
        // itself. Nothing is posted yet. The consumers are in place before the abort token is registered: one already
        // cancelled closes the lanes at once, and each lane's close schedules its idle consumer.
        var spin = IdleWait.SpinsFor(ConsumerCount + ProducerCount);
        var consumers = CreateConsumers(options, handlers, i => new SoleLaneQueue(lanes[i]), IdleWait.QueuePause, spin);
        for (var i = 0; i < consumers.Length; i++)
        {
            lanes[i].UseScheduledConsumer(consumers[i]);
        }

        StartConsumers(consumers);
    }

    /// <summary>
    /// A lane's only consumer: the lane notes it idle under its lock and schedules it from the post (see
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

        [MethodImpl(MethodImplOptions.AggressiveOptimization)]
        public TurnTake Take(ref Slot<T>[] batch, int most, bool idleIfEmpty, out int count, out T one)
        {
            if (s_paces && _lastTaken is > 0 and < SmallTake)
            {
                Thread.SpinWait(BuildUp);
            }

            if (!idleIfEmpty && !lane.Queue.HasWork())
            {
                // Nothing to take and no need to go idle: say so from a read, leaving the lock's line to the producer.
                count = 0;
                one = default!;
                _lastTaken = 0;
                return TurnTake.Empty;
            }

            var take = lane.Queue.Take(ref batch, most, idleIfEmpty, out count, out one);
            _lastTaken = take switch { TurnTake.Taken => count, TurnTake.TakenOne => 1, _ => 0 };
            return take;
        }

        public readonly bool HasWork() => lane.Queue.HasWork();

        public readonly bool TryClaimIdle() => false;
    }
}
