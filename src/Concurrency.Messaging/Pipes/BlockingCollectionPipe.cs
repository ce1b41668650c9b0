using System.Collections.Concurrent;

namespace Concurrency.Messaging.Pipes;

/// <summary>
/// <see cref="BlockingCollection{T}"/>, the baseline a user reaches for first. Broadcast gives each consumer its own
/// collection; work-sharing shares one. Bounded posts to several collections are serialized so that a refused
/// <see cref="TryPost"/> has delivered to nobody.
/// </summary>
internal sealed class BlockingCollectionPipe<T> : PipeBase<T>
{
    private readonly BlockingCollection<T>[] _lanes;
    private readonly Action<T>[] _handlers;
    private readonly bool _sharing;
    private readonly Lock? _broadcastGate; // serializes broadcast posts: one post reaches every lane before the next starts

    public BlockingCollectionPipe(IReadOnlyList<Action<T>> handlers, PipeOptions options)
        : base(PipeKind.BlockingCollection, options)
    {
        _handlers = [.. handlers];
        _sharing = options.Distribution == PipeDistribution.WorkSharing;
        _lanes = new BlockingCollection<T>[_sharing ? 1 : _handlers.Length];
        for (var i = 0; i < _lanes.Length; i++)
        {
            _lanes[i] = options.Capacity is int capacity
                ? new BlockingCollection<T>(new ConcurrentQueue<T>(), capacity)
                : new BlockingCollection<T>(new ConcurrentQueue<T>());
        }

        // Broadcast posts are serialized when a full lane must refuse the whole post (bounded) and when several producers
        // could otherwise reach the lanes in different orders, leaving consumers to disagree on the order.
        if (_lanes.Length > 1 && (options.Capacity is not null || options.Producers > 1))
        {
            _broadcastGate = new Lock();
        }

        StartConsumerThreads(_handlers.Length, Consume);
    }

    public override bool TryPost(T message)
    {
        if (_broadcastGate is null)
        {
            return TryPostAll(message);
        }

        lock (_broadcastGate)
        {
            // With one poster at a time, room can only grow between this check and the adds (BoundedCapacity is -1 when unbounded).
            if (_lanes.Any(lane => lane.BoundedCapacity > 0 && lane.Count >= lane.BoundedCapacity))
            {
                return false;
            }

            return TryPostAll(message);
        }
    }

    public override void Post(T message, CancellationToken cancellationToken = default)
    {
        if (_broadcastGate is null)
        {
            PostAll(message, cancellationToken);
            return;
        }

        lock (_broadcastGate)
        {
            PostAll(message, cancellationToken);
        }
    }

    /// <summary>BlockingCollection has no asynchronous add: a full pipe's wait runs on a thread-pool thread.</summary>
    public override ValueTask PostAsync(T message, CancellationToken cancellationToken = default)
    {
        if (cancellationToken.IsCancellationRequested)
        {
            return ValueTask.FromCanceled(cancellationToken);
        }

        if (TryPost(message))
        {
            return default;
        }

        return new ValueTask(Task.Run(() => Post(message, cancellationToken), cancellationToken));
    }

    protected override void Close()
    {
        foreach (var lane in _lanes)
        {
            lane.CompleteAdding();
        }
    }

    private bool TryPostAll(T message)
    {
        for (var i = 0; i < _lanes.Length; i++)
        {
            try
            {
                if (!_lanes[i].TryAdd(message))
                {
                    // Only the first lane can be full here: later lanes had room under the broadcast gate.
                    return false;
                }
            }
            catch (InvalidOperationException) when (_lanes[i].IsAddingCompleted)
            {
                if (i == 0)
                {
                    return false;
                }

                // A Complete overtook this broadcast between lanes: count the deliveries it cut off.
                CountUnhandled(_lanes.Length - i);
                return true;
            }
        }

        return true;
    }

    private void PostAll(T message, CancellationToken cancellationToken)
    {
        for (var i = 0; i < _lanes.Length; i++)
        {
            try
            {
                _lanes[i].Add(message, cancellationToken);
            }
            catch (InvalidOperationException) when (_lanes[i].IsAddingCompleted)
            {
                if (i == 0)
                {
                    throw new PipeClosedException();
                }

                CountUnhandled(_lanes.Length - i);
                return;
            }
            catch (OperationCanceledException) when (i > 0)
            {
                // Cancelled while a later lane was full: the earlier consumers have it, the rest are counted.
                CountUnhandled(_lanes.Length - i);
                throw;
            }
        }
    }

    private void Consume(int consumer)
    {
        var lane = _lanes[_sharing ? 0 : consumer];
        var handler = _handlers[consumer];

        // TryTake with an infinite timeout returns false once adding is completed and the collection is empty;
        // Close is what releases it.
        while (lane.TryTake(out var message, Timeout.Infinite))
        {
            Deliver(handler, message);
        }
    }
}
