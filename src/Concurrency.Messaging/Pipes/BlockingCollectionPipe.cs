using System.Collections.Concurrent;
using System.Runtime.CompilerServices;

namespace Concurrency.Messaging.Pipes;

/// <summary>
/// <see cref="BlockingCollection{T}"/>, the baseline a user reaches for first. Broadcast gives each consumer its own
/// collection; work-sharing shares one.
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
    private readonly Action<T>[] _handlers;
    private readonly bool _sharing;
    private readonly LaneRoom? _room;                // bounded pipes only
    private readonly Lock? _gate;                    // several lanes: one post reaches every lane before the next post or the close
    private bool _closed;                            // guarded by _gate

    public BlockingCollectionPipe(IReadOnlyList<Action<T>> handlers, PipeOptions options)
        : base(PipeKind.BlockingCollection, options)
    {
        _handlers = [.. handlers];
        _sharing = options.Distribution == PipeDistribution.WorkSharing;
        _lanes = new BlockingCollection<T>[_sharing ? 1 : _handlers.Length];
        for (var i = 0; i < _lanes.Length; i++)
        {
            _lanes[i] = new BlockingCollection<T>(new ConcurrentQueue<T>());
        }

        _room = options.Capacity is int capacity ? new LaneRoom(_lanes.Length, capacity) : null;
        _gate = _lanes.Length > 1 ? new Lock() : null;
        StartConsumerThreads(_handlers.Length, Consume);
    }

    public override bool TryPost(T message)
    {
        if (_room is not null && !_room.TryReserve())
        {
            return false;
        }

        return WriteReserved(message);
    }

    public override void Post(T message, CancellationToken cancellationToken = default)
    {
        if (_room is not null && !_room.TryReserve())
        {
            cancellationToken.ThrowIfCancellationRequested();
            ThrowIfWaitingOnItself();
            _room.Reserve(cancellationToken);
        }

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

        if (_room is null || _room.TryReserve())
        {
            return WriteReserved(message) ? default : ValueTask.FromException(new PipeClosedException());
        }

        return PostSlowAsync(message, cancellationToken);
    }

    protected override void Close()
    {
        _room?.Close();
        if (_gate is null)
        {
            _lanes[0].CompleteAdding();
            return;
        }

        lock (_gate)
        {
            _closed = true;
            foreach (var lane in _lanes)
            {
                lane.CompleteAdding();
            }
        }
    }

    private async ValueTask PostSlowAsync(T message, CancellationToken cancellationToken)
    {
        await _room!.ReserveAsync(cancellationToken).ConfigureAwait(false);
        if (!WriteReserved(message))
        {
            throw new PipeClosedException();
        }
    }

    /// <summary>Adds to every lane (room, if bounded, is already reserved), or to none if the pipe is closed.</summary>
    private bool WriteReserved(T message)
    {
        if (_gate is null)
        {
            if (_lanes[0].TryAddUnlessCompleted(message))
            {
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

                    return true;
                }
            }
        }

        _room?.Unreserve();
        return false;
    }

    // Runs once per consumer for the pipe's whole life: compiled fully optimized from the start, not left in tier-0 or
    // on-stack-replacement code that a loop entered once would otherwise run in.
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private void Consume(int consumer)
    {
        var index = _sharing ? 0 : consumer;
        var lane = _lanes[index];
        var handler = _handlers[consumer];

        // TryTake with an infinite timeout returns false once adding is completed and the collection is empty; Close is what
        // releases it.
        while (lane.TryTake(out var message, Timeout.Infinite))
        {
            _room?.Free(index);
            Deliver(handler, message);
        }
    }
}
