using System.Numerics;
using System.Runtime.CompilerServices;
using Concurrency.Messaging.Internal;

namespace Concurrency.Messaging.Pipes;

/// <summary>
/// Bounded lock-free rings for one producer at a time, one ring per consumer. Broadcast: a post reaches every ring or none.
/// Work-sharing: a post goes to one ring with room, taking the rings in turn, so a slow consumer gets fewer messages.
/// Consumers drain in batches; each side pauses, then yields, then parks when it has nothing to do (see
/// <see cref="IdleWait"/>), so a busy pipe never parks and an idle one costs no CPU.
/// </summary>
/// <remarks>
/// The producer's path has no fence and no lock: <see cref="SingleProducerGate"/> admits the owning thread with plain
/// stores, and <see cref="SingleProducerRing{T}"/> publishes with a release store. The costs sit on the rare paths: a
/// process-wide barrier when a side parks, when the posting thread changes, and when the pipe closes.
/// </remarks>
internal sealed class RingPipe<T> : PipeBase<T>
{
    private readonly SingleProducerRing<T>[] _rings;
    private readonly SingleProducerRing<T>? _single; // the only ring when there is one consumer: the common case, posted to directly
    private readonly Action<T>[] _handlers;
    private readonly RoomSignal _room = new();
    private readonly Func<bool> _isDrainable;
    private readonly int _pause;          // IdleWait's pause for this capacity
    private readonly bool _spin;          // IdleWait may pause: the producer and every consumer have a core each
    private readonly int _batchLimit;     // a consumer releases room at least this often, so the producer can refill meanwhile
    private readonly bool _sharing;       // work-sharing: each post goes to one ring
    private readonly PooledConsumer<T, RingQueue>[]? _turns; // pooled runner: ring i's consumer; notified (with a fence) after a post
    private SingleProducerGate _gate;     // who may post; closed
    private PaddedIndexes _cursor;        // work-sharing, inside the gate: Index = the ring the next post tries first
    private int _drainable;               // 0 → 1 once, after Close saw every in-flight post land: consumers may finish
    private bool _postYieldsFirst;        // what the last wait for room learned (IdleWait.NextYieldsFirst): a hint, racy by design

    public RingPipe(IReadOnlyList<Action<T>> handlers, PipeOptions options)
        : base(PipeKind.Ring, options)
    {
        _handlers = [.. handlers];
        var capacity = (int)BitOperations.RoundUpToPowerOf2((uint)(options.Capacity ?? Pipe.DefaultRingCapacity));
        _rings = new SingleProducerRing<T>[_handlers.Length];
        for (var i = 0; i < _rings.Length; i++)
        {
            _rings[i] = new SingleProducerRing<T>(capacity);
        }

        _single = _rings.Length == 1 ? _rings[0] : null;
        _sharing = _rings.Length > 1 && options.Distribution == PipeDistribution.WorkSharing;
        _pause = IdleWait.PauseFor(capacity);
        _spin = IdleWait.SpinsFor(_rings.Length + 1);
        _batchLimit = Math.Max(1, capacity / 2);
        _gate.Initialize(options.ToleratesConcurrentProducers);
        _isDrainable = () => Volatile.Read(ref _drainable) != 0;
        StartConsumers(options, _handlers.Length, Consume, i => new PooledConsumer<T, RingQueue>(this, i, new RingQueue(this, _rings[i]), _handlers[i], options.MessagesPerTurn), out _turns);
    }

    /// <summary>Gets whether every consumer is parked: idle and costing no CPU (for tests).</summary>
    internal bool AllConsumersParked => _rings.All(ring => ring.ConsumerParked);

    public override bool TryPost(T message) => TryPostCore(message);

    /// <summary><see cref="TryPost"/> inlined into the caller: the Rx operator's OnNext, which is this pipe's hottest caller.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal bool TryPostInline(T message) => TryPostCore(message);

    public override void Post(T message, CancellationToken cancellationToken = default)
    {
        cancellationToken.ThrowIfCancellationRequested(); // one branch, never taken for a token that cannot be cancelled
        if (!TryPostCore(message))
        {
            PostSlow(message, cancellationToken);
        }
    }

    public override ValueTask PostAsync(T message, CancellationToken cancellationToken = default)
    {
        if (cancellationToken.IsCancellationRequested)
        {
            return ValueTask.FromCanceled(cancellationToken);
        }

        return TryPost(message) ? default : PostSlowAsync(message, cancellationToken);
    }

    /// <summary>The hot path, inlined into both posts: the owning thread, one ring, room in it.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private bool TryPostCore(T message)
    {
        var thread = PostingThread.Current;
        if (_single is not { } ring || !_gate.TryEnter(thread, out var poster))
        {
            return TryPostSlow(message, thread);
        }

        if (!ring.HasRoom())
        {
            SingleProducerGate.Exit(poster);
            return false;
        }

        ring.Publish(message);
        SingleProducerGate.Exit(poster);
        if (_turns is not null)
        {
            _turns[0].NotifyPublished(); // no fence: the turn goes idle behind a process-wide barrier (RingQueue.Take)
        }
        else if (ring.ConsumerParked)
        {
            ring.WakeConsumer();
        }

        return true;
    }

    protected override void Close()
    {
        _gate.Close();
        Volatile.Write(ref _drainable, 1);
        foreach (var ring in _rings)
        {
            ring.ConsumerWake.Set();
        }

        _room.WakeAll();
        if (_turns is not null)
        {
            PooledConsumer<T, RingQueue>.NotifyAll(_turns);
        }
    }

    /// <summary>Broadcast, a new posting thread, the lock, or a closed pipe.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private bool TryPostSlow(T message, object thread)
    {
        if (_gate.TryEnter(thread, out var poster))
        {
            var published = TryPublish(message);
            SingleProducerGate.Exit(poster);
            if (published)
            {
                WakeParkedConsumers();
            }

            return published;
        }

        while (true)
        {
            switch (_gate.EnterSlow(thread))
            {
                case SingleProducerGate.Entry.Closed:
                    return false;
                case SingleProducerGate.Entry.Locked:
                    bool published;
                    try
                    {
                        published = TryPublish(message);
                    }
                    finally
                    {
                        _gate.ExitLocked();
                    }

                    if (published)
                    {
                        WakeParkedConsumers();
                    }

                    return published;
                default:
                    if (_gate.TryEnter(thread, out poster))
                    {
                        published = TryPublish(message);
                        SingleProducerGate.Exit(poster);
                        if (published)
                        {
                            WakeParkedConsumers();
                        }

                        return published;
                    }

                    break; // ownership moved on before this thread used it: go round again
            }
        }
    }

    /// <summary>Inside the gate: broadcast posts to every ring or to none; work-sharing to the next ring with room.</summary>
    private bool TryPublish(T message)
    {
        var rings = _rings;
        if (_sharing)
        {
            return TryPublishToOne(rings, message);
        }

        foreach (var ring in rings)
        {
            if (!ring.HasRoom())
            {
                return false;
            }
        }

        foreach (var ring in rings)
        {
            ring.Publish(message);
        }

        return true;
    }

    private bool TryPublishToOne(SingleProducerRing<T>[] rings, T message)
    {
        var first = (int)_cursor.Index;
        for (var k = 0; k < rings.Length; k++)
        {
            var lane = first + k < rings.Length ? first + k : first + k - rings.Length;
            if (rings[lane].HasRoom())
            {
                rings[lane].Publish(message);
                _cursor.Index = lane + 1 < rings.Length ? lane + 1 : 0;
                return true;
            }
        }

        return false;
    }

    private void WakeParkedConsumers()
    {
        if (_turns is not null)
        {
            PooledConsumer<T, RingQueue>.NotifyAll(_turns);
            return;
        }

        foreach (var ring in _rings)
        {
            if (ring.ConsumerParked)
            {
                ring.WakeConsumer();
            }
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void PostSlow(T message, CancellationToken cancellationToken)
    {
        // Each wait for room starts the way the last one ended: a pause when one pause brought room (the consumer runs on
        // another core), a yield when it did not (it waits for this core). See IdleWait.
        var wait = new IdleWait(_spin, _postYieldsFirst);
        while (true)
        {
            ThrowIfClosed();
            cancellationToken.ThrowIfCancellationRequested();
            ThrowIfWaitingOnItself();
            if (!wait.Wait(_pause))
            {
                var woken = _room.Enter();
                try
                {
                    if (!HasRoomNow() && !_gate.IsClosed)
                    {
                        woken.Wait(cancellationToken);
                    }
                }
                finally
                {
                    _room.Leave();
                }

                wait.Reset();
            }

            if (TryPost(message))
            {
                _postYieldsFirst = wait.NextYieldsFirst;
                return;
            }
        }
    }

    private async ValueTask PostSlowAsync(T message, CancellationToken cancellationToken)
    {
        while (true)
        {
            ThrowIfClosed();
            cancellationToken.ThrowIfCancellationRequested();
            var woken = _room.Enter();
            try
            {
                if (!HasRoomNow() && !_gate.IsClosed)
                {
                    await woken.WaitAsync(cancellationToken).ConfigureAwait(false);
                }
            }
            finally
            {
                _room.Leave();
            }

            if (TryPost(message))
            {
                return;
            }
        }
    }

    private bool HasRoomNow() => _sharing ? _rings.Any(ring => ring.HasRoomNow()) : _rings.All(ring => ring.HasRoomNow());

    private void ThrowIfClosed()
    {
        if (_gate.IsClosed)
        {
            throw new PipeClosedException();
        }
    }

    // Runs once per consumer for the pipe's whole life: compiled fully optimized from the start, not left in tier-0 or
    // on-stack-replacement code that a loop entered once would otherwise run in.
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private void Consume(int consumer)
    {
        var ring = _rings[consumer];
        var handler = _handlers[consumer];
        var head = ring.Head;
        var wait = new IdleWait(_spin);
        while (true)
        {
            var tail = ring.ReadTail();
            if (tail != head)
            {
                head = HandleBatch(consumer, ring, handler, head, Math.Min(tail, head + _batchLimit));
                HandBack(ring, head);
                wait.Reset();
                continue;
            }

            if (_isDrainable())
            {
                // Close waited for every accepted post to publish before it said so: one more look sees them all.
                if (ring.ReadTail() != head)
                {
                    continue;
                }

                ring.Clear();
                return;
            }

            if (!wait.Wait(_pause))
            {
                ring.Park(head, _isDrainable, Timeout.InfiniteTimeSpan);
                wait.Reset();
            }
        }
    }

    /// <summary>Consumer, once per batch: hands the slots before <paramref name="head"/> back, waking posts that wait for room.</summary>
    private void HandBack(SingleProducerRing<T> ring, long head)
    {
        ring.Release(head);
        if (_room.HasWaiters)
        {
            _room.WakeAll();
        }
    }

    // Called once per batch from the consumer loop: compiled fully optimized from the first batch, as the loop is.
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private long HandleBatch(int consumer, SingleProducerRing<T> ring, Action<T> handler, long head, long end)
    {
        var start = head;
        try
        {
            // Stopping is checked per message, so a fault or abort stops delivery mid-batch.
            for (; head < end && !IsStopping; head++)
            {
                handler(ring.Take(head));
            }

            CountHandled(consumer, head - start);
            CountUnhandled(end - head);
            return end;
        }
        catch (Exception ex)
        {
            // The message at head threw; it and the rest of the batch are not handled.
            CountHandled(consumer, head - start);
            CountUnhandled(end - head);
            Fault(ex);
            return end;
        }
    }

    /// <summary>
    /// A ring's consumer side under the pooled runner: runs of up to <see cref="RunLength"/> messages copied out of their
    /// slots, reading the producer's tail only when it has taken everything it last saw, and handing slots back once per
    /// batch (when it has taken all it saw, or half the ring, so a producer waiting for room can refill meanwhile): in a
    /// stream the two sides touch each other's lines about once per batch. A take that goes idle or finishes has handed everything back; a turn that yields
    /// may keep up to half the ring until its next turn's first take. The ring cannot mark its consumer idle (its producer
    /// posts with no fence), so the consumer's flag lives here. The post reads it with no fence either: the turn that goes
    /// idle pays a process-wide barrier instead, as the dedicated consumer does when it parks, so a post into a busy
    /// consumer costs one read (with a fence per post a burst into a fresh pipe ran at 40 M msg/s, without it 250 M; 2 cores).
    /// </summary>
    private struct RingQueue(RingPipe<T> pipe, SingleProducerRing<T> ring) : ITurnQueue<T>
    {
        private const int RunLength = 256; // the most messages one take copies out of the ring

        private long _head = ring.Head;     // the running turn only: the next slot to take
        private long _seen = ring.Head;     // the running turn only: the tail last read, so slots before it are published
        private long _released = ring.Head; // the running turn only: slots before it are handed back to the producer
        private IdleFlag _idle;             // see IdleFlag: the producer claims it after posting, the running turn releases it

        public TurnTake Take(ref Slot<T>[] batch, int most, bool idleIfEmpty, out int count, out T one)
        {
            count = 0;
            while (true)
            {
                if (_head != _seen)
                {
                    if (_head - _released >= pipe._batchLimit)
                    {
                        HandBack(); // every slot before _head was copied out by an earlier take
                    }

                    // A run of what is published is copied into the turn's batch, so the runner hands it over in one loop
                    // rather than coming back here per message; a copied slot is free for the producer at the next hand-back.
                    var run = (int)Math.Min(Math.Min(_seen - _head, most), RunLength);
                    if (batch.Length < run)
                    {
                        batch = new Slot<T>[Math.Min(RunLength, ring.Capacity)]; // once per consumer
                    }

                    for (var i = 0; i < run; i++)
                    {
                        batch[i].Value = ring.Take(_head + i);
                    }

                    _head += run;
                    count = run;
                    one = default!;
                    return TurnTake.Taken;
                }

                if (_released != _head)
                {
                    HandBack();
                }

                one = default!;
                _seen = ring.ReadTail();
                if (_seen != _head)
                {
                    continue;
                }

                if (pipe._isDrainable())
                {
                    // Close waited for every accepted post to publish before it said so: one more look sees them all.
                    _seen = ring.ReadTail();
                    if (_seen != _head)
                    {
                        continue;
                    }

                    ring.Clear();
                    return TurnTake.Completed;
                }

                if (!idleIfEmpty)
                {
                    return TurnTake.Empty;
                }

                // Behind a process-wide barrier, as the dedicated consumer parks: the producer reads the flag with no
                // fence after publishing (NotifyPublished), and a stream then pays no fence per post.
                if (!_idle.ReleaseBehindBarrierThenLook<T, RingQueue>(ref this))
                {
                    return TurnTake.Idle; // nothing came, or the producer saw Idle and queued the next turn
                }
            }
        }

        public readonly bool HasWork() => ring.ReadTail() != _head || pipe._isDrainable();

        public bool TryClaimIdle() => _idle.TryClaim();

        private void HandBack()
        {
            pipe.HandBack(ring, _head);
            _released = _head;
        }
    }
}
