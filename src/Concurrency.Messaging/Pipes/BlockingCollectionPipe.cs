using System.Collections.Concurrent;
using System.Runtime.CompilerServices;
using Concurrency.Messaging.Internal;

namespace Concurrency.Messaging.Pipes;

/// <summary>
/// <see cref="BlockingCollection{T}"/>, the baseline a user reaches for first. Broadcast gives each consumer its own
/// collection; work-sharing shares one. Consumers take without blocking (<c>TryTake</c>) and a post schedules an idle one,
/// on a dedicated thread or as pool turns (see <see cref="PipeConsumer{T, TQueue}"/>).
/// </summary>
/// <remarks>
/// A bounded pipe keeps its room in a <see cref="LaneRoom"/> (a semaphore per collection, as a bounded BlockingCollection
/// keeps internally) instead of the collection's own bound, so that a broadcast post reserves room in every collection
/// before it adds to any (a refused or cancelled post has delivered to nobody), and so that <see cref="PostAsync"/> waits
/// asynchronously instead of blocking a thread-pool thread. Posts to several collections and the close share one gate, so
/// every consumer sees the same order and a close never lands between a post's collections.
/// </remarks>
internal sealed class BlockingCollectionPipe<T> : PipeBase<T>
{
    private readonly BlockingCollection<T>[] _lanes; // unbounded: room is _room's job
    private readonly bool _sharing;
    private readonly LaneRoom? _room;                // bounded pipes only
    private readonly Lock? _gate;                    // several lanes: one post reaches every lane before the next post or the close
    private readonly PipeConsumer<T, CollectionQueue>[] _consumers; // scheduled, if idle, after every accepted post
    private bool _closed;                            // guarded by _gate

    public BlockingCollectionPipe(IReadOnlyList<Action<T>> handlers, PipeOptions options)
        : base(PipeKind.BlockingCollection, options)
    {
        _sharing = options.Distribution == PipeDistribution.WorkSharing;
        _lanes = new BlockingCollection<T>[_sharing ? 1 : handlers.Count];
        for (var i = 0; i < _lanes.Length; i++)
        {
            _lanes[i] = new BlockingCollection<T>(new ConcurrentQueue<T>());
        }

        _room = options.Capacity is int capacity ? new LaneRoom(_lanes.Length, capacity) : null;
        _gate = _lanes.Length > 1 || _room is not null ? new Lock() : null; // bounded: room is reserved under the gate
        _consumers = CreateConsumers(options, [.. handlers], i =>
        {
            var index = _sharing ? 0 : i;
            return new CollectionQueue(_lanes[index], _room, index);
        }, IdleWait.QueuePause, IdleWait.SpinsFor(handlers.Count + options.Producers));
        StartConsumers(_consumers);
    }

    public override bool TryPost(T message) => TryWriteNow(message, out _);

    public override void Post(T message, CancellationToken cancellationToken = default)
    {
        cancellationToken.ThrowIfCancellationRequested();
        if (TryWriteNow(message, out var closed))
        {
            return;
        }

        if (closed)
        {
            throw new PipeClosedException();
        }

        // Full: only a bounded pipe gets here.
        ThrowIfWaitingOnItself();
        _room!.Reserve(cancellationToken);
        if (!WriteReserved(message))
        {
            throw new PipeClosedException();
        }
    }

    public override ValueTask PostAsync(T message, CancellationToken cancellationToken = default)
    {
        if (cancellationToken.IsCancellationRequested)
        {
            return ValueTask.FromCanceled(cancellationToken);
        }

        if (TryWriteNow(message, out var closed))
        {
            return default;
        }

        return closed ? ValueTask.FromException(new PipeClosedException()) : PostSlowAsync(message, cancellationToken);
    }

    protected override void Close()
    {
        if (_gate is null)
        {
            _lanes[0].CompleteAdding();
        }
        else
        {
            lock (_gate)
            {
                _closed = true;
                foreach (var lane in _lanes)
                {
                    lane.CompleteAdding();
                }
            }

            // Only now wake the posts waiting for room: one refused as closed must not be followed by an accepted post of
            // its own thread, which it would be if the gate were still open when it woke.
            _room?.Close();
        }

        PipeConsumer<T, CollectionQueue>.NotifyAll(_consumers);
    }

    /// <summary>After an accepted post: consumers that are idle need scheduling (any one of them, when they share a lane).</summary>
    private void Posted() => PipeConsumer<T, CollectionQueue>.NotifyPosted(_consumers, _sharing);

    private async ValueTask PostSlowAsync(T message, CancellationToken cancellationToken)
    {
        await _room!.ReserveAsync(cancellationToken).ConfigureAwait(false);
        if (!WriteReserved(message))
        {
            throw new PipeClosedException();
        }
    }

    /// <summary>
    /// Without waiting: reserves room (if bounded) and adds to every lane, or does nothing and says why
    /// (<paramref name="closed"/>, or full). A bounded pipe reserves under the gate: a reservation taken outside it could make
    /// a concurrent post find the pipe full and then be refused itself because a close came between, so a post would have
    /// been refused for room that no accepted message ever took.
    /// </summary>
    private bool TryWriteNow(T message, out bool closed)
    {
        if (_gate is null)
        {
            closed = !_lanes[0].TryAddUnlessCompleted(message); // unbounded, one lane
        }
        else
        {
            lock (_gate)
            {
                closed = _closed;
                if (closed || (_room is not null && !_room.TryReserve()))
                {
                    return false;
                }

                foreach (var lane in _lanes)
                {
                    lane.Add(message); // unbounded, or room reserved; not completed (the close takes this gate): never waits
                }
            }
        }

        if (closed)
        {
            return false;
        }

        Posted();
        return true;
    }

    /// <summary>Room already reserved (after a wait): adds to every lane, or to none if the pipe is closed.</summary>
    private bool WriteReserved(T message)
    {
        if (_gate is null)
        {
            if (_lanes[0].TryAddUnlessCompleted(message))
            {
                Posted();
                return true;
            }
        }
        else
        {
            lock (_gate)
            {
                if (!_closed)
                {
                    foreach (var lane in _lanes)
                    {
                        lane.Add(message); // unbounded and not completed (the close takes this gate): never waits, never throws
                    }

                    Posted();
                    return true;
                }
            }
        }

        _room?.Unreserve();
        return false;
    }

    /// <summary>
    /// One consumer's side of a collection: a message at a time, freeing its room. The collection cannot mark a
    /// consumer idle atomically with finding itself empty, so the consumer's flag lives here.
    /// </summary>
    private struct CollectionQueue(BlockingCollection<T> lane, LaneRoom? room, int index) : ITurnQueue<T>
    {
        private IdleFlag _idle; // see IdleFlag: producers claim it after posting, the running turn releases it

        [MethodImpl(MethodImplOptions.AggressiveOptimization)]
        public TurnTake Take(ref Slot<T>[] batch, int most, bool idleIfEmpty, out int count, out T one)
        {
            count = 0;
            while (true)
            {
                if (lane.TryTake(out one!))
                {
                    room?.Free(index);
                    return TurnTake.TakenOne;
                }

                // Completed only once adding is completed and the collection is empty, both decided by the collection itself.
                if (lane.IsCompleted)
                {
                    return TurnTake.Completed;
                }

                if (!idleIfEmpty)
                {
                    return TurnTake.Empty;
                }

                if (!_idle.ReleaseThenLook<T, CollectionQueue>(ref this))
                {
                    return TurnTake.Idle; // nothing came, or a producer saw Idle and queued the next turn
                }
            }
        }

        public readonly bool HasWork() => lane.Count > 0 || lane.IsAddingCompleted;

        public bool TryClaimIdle() => _idle.TryClaim();
    }
}
