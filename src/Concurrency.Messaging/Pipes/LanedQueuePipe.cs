using System.Diagnostics;
using Concurrency.Messaging.Internal;

namespace Concurrency.Messaging.Pipes;

/// <summary>
/// An unbounded pipe built from locked queues ("lanes"): broadcast gives each consumer its own lane and posts to all of them;
/// work-sharing gives every consumer the same lane. Each consumer runs on a dedicated thread, or as turns on the thread
/// pool (<see cref="PipeRunner.ThreadPool"/>), where a post notifies an idle consumer of each lane it reached.
/// </summary>
internal abstract class LanedQueuePipe<T, TLane> : PipeBase<T>
    where TLane : class, IQueueLane<T>, new()
{
    private readonly TLane[] _lanes;
    private readonly Action<T>[] _handlers;
    private readonly Lock? _fanOutGate; // broadcast: one post reaches every lane before the next post or the close starts
    private PooledConsumer<T, LaneQueue>[]? _turns; // pooled runner: consumer i takes from lane i / ConsumersPerLane; set once by the constructor
    private readonly TLane? _direct; // the one lane, when a post is only that lane's enqueue (no fan-out, no notice to the pipe's turns)

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
        _direct = _lanes.Length == 1 && _turns is null ? _lanes[0] : null;
    }

    /// <summary>
    /// Gets the pipe's one lane when a post is nothing but that lane's enqueue: one lane (one consumer, or consumers sharing
    /// it) and no pooled consumers for the pipe to notify; otherwise <see langword="null"/>. A kind calls its lane directly
    /// through it, sparing the post a call through the lane's interface.
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

        if (accepted && _turns is { } turns)
        {
            PooledConsumer<T, LaneQueue>.NotifyPosted(turns, ConsumersPerLane > 1);
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

        if (_turns is { } turns)
        {
            PooledConsumer<T, LaneQueue>.NotifyAll(turns);
        }
    }

    /// <summary>
    /// Starts the consumers; called once, from the constructor. Each runs <see cref="Consume"/> on a dedicated thread, or as
    /// pooled turns that take with <see cref="IQueueLane{T}.TryTakeNow"/>; an implementation with a runner of its own overrides this.
    /// </summary>
    protected virtual void StartConsumers(TLane[] lanes, Action<T>[] handlers, PipeOptions options) =>
        StartConsumers(
            options,
            handlers.Length,
            consumer => Consume(consumer, lanes[consumer / ConsumersPerLane], handlers[consumer]),
            consumer => new PooledConsumer<T, LaneQueue>(this, consumer, new LaneQueue(lanes[consumer / ConsumersPerLane], ConsumersPerLane == 1), handlers[consumer], options.MessagesPerTurn),
            out _turns);

    /// <summary>Consumer <paramref name="consumer"/>'s loop: take from <paramref name="lane"/> until it is closed and empty.</summary>
    protected abstract void Consume(int consumer, TLane lane, Action<T> handler);

    /// <summary>
    /// One pooled consumer's side of a lane: consumers sharing the lane take a message at a time, so they share its
    /// backlog; a consumer with a lane of its own takes a run of up to <see cref="RunLength"/>, so the runner hands it over
    /// in one loop. A lane cannot mark a consumer idle under its lock (several consumers, scheduled by the pipe), so the
    /// consumer's flag lives here.
    /// </summary>
    private struct LaneQueue(TLane lane, bool runs) : ITurnQueue<T>
    {
        private const int RunLength = 64; // the most messages one take moves out of a lane of its own

        private IdleFlag _idle; // see IdleFlag: producers claim it after posting, the running turn releases it

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
