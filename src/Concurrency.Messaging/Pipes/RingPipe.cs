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
    private readonly RoomSignal _room = new();
    private readonly int _pause;          // IdleWait's pause for this capacity
    private readonly bool _spin;          // IdleWait may pause: the producer and every consumer have a core each
    private readonly bool _sharing;       // work-sharing: each post goes to one ring
    private readonly PipeConsumer<T, RingQueue<T>>[] _consumers; // ring i's consumer; scheduled, with no fence, by a post that finds it idle
    private readonly PipeConsumer<T, RingQueue<T>>? _singleConsumer; // _single's consumer, scheduled by the hot post with no fence
    private SingleProducerGate _gate;     // who may post; closed
    private PaddedIndexes _cursor;        // work-sharing, inside the gate: Index = the ring the next post tries first
    private int _drainable;               // 0 → 1 once, after Close saw every in-flight post land: consumers may finish
    private bool _postYieldsFirst;        // what the last wait for room learned (IdleWait.NextYieldsFirst): a hint, racy by design

    public RingPipe(IReadOnlyList<Action<T>> handlers, PipeOptions options)
        : base(PipeKind.Ring, options)
    {
        var capacity = (int)BitOperations.RoundUpToPowerOf2((uint)(options.Capacity ?? Pipe.DefaultRingCapacity));
        _rings = new SingleProducerRing<T>[handlers.Count];
        for (var i = 0; i < _rings.Length; i++)
        {
            _rings[i] = new SingleProducerRing<T>(capacity);
        }

        _single = _rings.Length == 1 ? _rings[0] : null;
        _sharing = _rings.Length > 1 && options.Distribution == PipeDistribution.WorkSharing;
        _pause = IdleWait.PauseFor(capacity);
        _spin = IdleWait.SpinsFor(_rings.Length + 1);
        _gate.Initialize(options.ToleratesConcurrentProducers);
        var batchLimit = Math.Max(1, capacity / 2); // a consumer releases room at least this often, so the producer can refill meanwhile
        Func<bool> isDrainable = () => Volatile.Read(ref _drainable) != 0;
        _consumers = CreateConsumers(options, [.. handlers], i => new RingQueue<T>(_rings[i], _room, isDrainable, batchLimit), _pause, _spin);
        _singleConsumer = _single is null ? null : _consumers[0];
        StartConsumers(_consumers);
    }

    /// <summary>Gets whether every consumer is parked: idle and costing no CPU (for tests; dedicated consumers only).</summary>
    internal bool AllConsumersParked => _consumers.All(consumer => consumer.IsParked);

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
        if (ring.ConsumerIdle.TryClaim()) // no fence: the consumer goes idle behind a process-wide barrier (RingQueue.Take)
        {
            _singleConsumer!.Schedule();
        }

        return true;
    }

    protected override void Close()
    {
        _gate.Close();
        Volatile.Write(ref _drainable, 1);
        _room.WakeAll();
        PipeConsumer<T, RingQueue<T>>.NotifyAll(_consumers);
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
                ScheduleIdleConsumers();
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
                        ScheduleIdleConsumers();
                    }

                    return published;
                default:
                    if (_gate.TryEnter(thread, out poster))
                    {
                        published = TryPublish(message);
                        SingleProducerGate.Exit(poster);
                        if (published)
                        {
                            ScheduleIdleConsumers();
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

    /// <summary>After a post through the slow path: schedules every idle consumer, with no fence, as the hot path does (see <see cref="RingQueue{T}"/>).</summary>
    private void ScheduleIdleConsumers()
    {
        for (var i = 0; i < _consumers.Length; i++)
        {
            if (_rings[i].ConsumerIdle.TryClaim())
            {
                _consumers[i].Schedule();
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
}
