using System.Diagnostics;
using System.Runtime.CompilerServices;
using Concurrency.Messaging.Internal;

namespace Concurrency.Messaging.Pipes;

/// <summary>
/// An unbounded pipe built from locked queues ("lanes"): broadcast gives each consumer its own lane and posts to all of them;
/// work-sharing gives every consumer the same lane. Each consumer is a <see cref="PipeConsumer{T, TQueue}"/> (on a thread
/// of its own or as pool turns) over its side of its lane, and a post schedules an idle consumer of each lane it reached.
/// </summary>
internal abstract class LanedQueuePipe<T, TLane> : PipeBase<T>
    where TLane : class, IQueueLane<T>, new()
{
    private readonly TLane[] _lanes;
    private readonly Action<T>[] _handlers;
    private readonly Lock? _fanOutGate; // broadcast: one post reaches every lane before the next post or the close starts
    private PipeConsumer<T, LaneQueue>[]? _consumers; // consumer i takes from lane i / ConsumersPerLane; set once by the constructor (null: the lanes schedule theirs)
    private readonly TLane? _direct; // the one lane, when a post is only that lane's enqueue (no fan-out, no notice to the pipe's consumers)

    protected LanedQueuePipe(PipeKind kind, IReadOnlyList<Action<T>> handlers, PipeOptions options)
        : base(kind, options)
    {
        _handlers = [.. handlers];
        ConsumersPerLane = options.Distribution == PipeDistribution.WorkSharing ? _handlers.Length : 1;
        ConsumerCount = _handlers.Length;
        ProducerCount = options.Producers;
        _lanes = new TLane[_handlers.Length / ConsumersPerLane];
        for (var i = 0; i < _lanes.Length; i++)
        {
            _lanes[i] = new TLane();
        }

        _fanOutGate = _lanes.Length > 1 ? new Lock() : null;

        StartConsumers(_lanes, _handlers, options);
        _direct = _lanes.Length == 1 && _consumers is null ? _lanes[0] : null;
    }

    /// <summary>
    /// Gets the pipe's one lane when a post is nothing but that lane's enqueue: one lane (one consumer, or consumers sharing
    /// it) whose consumers the lane schedules itself, none for the pipe to schedule; otherwise <see langword="null"/>. A
    /// kind calls its lane directly through it, sparing the post a call through the lane's interface.
    /// </summary>
    protected TLane? DirectLane => _direct;

    /// <summary>Gets how many consumers take from each lane: 1 for broadcast, all of them for work-sharing.</summary>
    protected int ConsumersPerLane { get; }

    /// <summary>Gets how many consumers the pipe has.</summary>
    protected int ConsumerCount { get; }

    /// <summary>Gets how many producers were declared to post concurrently.</summary>
    protected int ProducerCount { get; }

    public override bool TryPost(T message)
    {
        bool accepted;
        if (_fanOutGate is null)
        {
            accepted = FanOut(message);
        }
        else
        {
            // Without the gate, two producers' posts could reach the lanes in different orders (broadcast consumers would
            // disagree on the order), and a close could land between a post's lanes (some consumers would get it, others not).
            lock (_fanOutGate)
            {
                accepted = FanOut(message);
            }
        }

        if (accepted && _consumers is { } consumers)
        {
            PipeConsumer<T, LaneQueue>.NotifyPosted(consumers, ConsumersPerLane > 1);
        }

        return accepted;
    }

    private bool FanOut(T message)
    {
        if (!_lanes[0].TryEnqueue(message))
        {
            return false;
        }

        // Posts and the close share the gate, so a post that got into the first lane gets into every lane.
        for (var i = 1; i < _lanes.Length; i++)
        {
            var accepted = _lanes[i].TryEnqueue(message);
            Debug.Assert(accepted, "A close landed between a broadcast post's lanes.");
        }

        return true;
    }

    protected sealed override void Close()
    {
        if (_fanOutGate is null)
        {
            _lanes[0].Close();
        }
        else
        {
            lock (_fanOutGate)
            {
                foreach (var lane in _lanes)
                {
                    lane.Close();
                }
            }
        }

        if (_consumers is { } consumers)
        {
            PipeConsumer<T, LaneQueue>.NotifyAll(consumers);
        }
    }

    /// <summary>
    /// Starts the consumers; called once, from the constructor. Each takes from its lane with
    /// <see cref="IQueueLane{T}.TryTakeNow"/> and is scheduled by the pipe's posts; a kind whose lanes schedule their own
    /// consumers overrides this.
    /// </summary>
    protected virtual void StartConsumers(TLane[] lanes, Action<T>[] handlers, PipeOptions options)
    {
        var perLane = ConsumersPerLane;
        _consumers = CreateConsumers(
            options,
            handlers,
            consumer => new LaneQueue(lanes[consumer / perLane], perLane == 1),
            IdleWait.QueuePause,
            IdleWait.SpinsFor(ConsumerCount + ProducerCount));
        StartConsumers(_consumers);
    }

    /// <summary>
    /// One consumer's side of a lane: consumers sharing the lane take a message at a time, so they share its
    /// backlog; a consumer with a lane of its own takes a run of up to <see cref="RunLength"/>, so the runner hands it over
    /// in one loop. A lane cannot mark a consumer idle under its lock (several consumers, scheduled by the pipe), so the
    /// consumer's flag lives here.
    /// </summary>
    private struct LaneQueue(TLane lane, bool runs) : ITurnQueue<T>
    {
        private const int RunLength = 64; // the most messages one take moves out of a lane of its own

        private IdleFlag _idle; // see IdleFlag: producers claim it after posting, the running turn releases it

        [MethodImpl(MethodImplOptions.AggressiveOptimization)]
        public TurnTake Take(ref Slot<T>[] batch, int most, bool idleIfEmpty, out int count, out T one)
        {
            count = 0;
            while (true)
            {
                var taken = lane.TryTakeNow(out one);
                if (taken == TurnTake.TakenOne && runs && most > 1 && lane.TryTakeNow(out var second) == TurnTake.TakenOne)
                {
                    if (batch.Length < RunLength)
                    {
                        batch = new Slot<T>[RunLength]; // once per consumer
                    }

                    batch[0].Value = one;
                    batch[1].Value = second;
                    count = 2;
                    var end = Math.Min(most, RunLength);
                    while (count < end && lane.TryTakeNow(out var next) == TurnTake.TakenOne)
                    {
                        batch[count++].Value = next; // a Completed or Empty here is seen again by the next take
                    }

                    one = default!;
                    return TurnTake.Taken;
                }

                if (taken != TurnTake.Empty || !idleIfEmpty)
                {
                    return taken;
                }

                if (!_idle.ReleaseThenLook<T, LaneQueue>(ref this))
                {
                    return TurnTake.Idle; // nothing came, or a producer saw Idle and queued the next turn
                }
            }
        }

        public bool HasWork() => lane.HasWork();

        public bool TryClaimIdle() => _idle.TryClaim();
    }
}
