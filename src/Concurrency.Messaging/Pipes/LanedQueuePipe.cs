namespace Concurrency.Messaging.Pipes;

/// <summary>
/// An unbounded pipe built from locked queues ("lanes"): broadcast gives each consumer its own lane and posts to all of them;
/// work-sharing gives every consumer the same lane. Each consumer runs on a dedicated thread.
/// </summary>
internal abstract class LanedQueuePipe<T, TLane> : PipeBase<T>
    where TLane : IQueueLane<T>, new()
{
    private readonly TLane[] _lanes;
    private readonly Action<T>[] _handlers;

    protected LanedQueuePipe(PipeKind kind, IReadOnlyList<Action<T>> handlers, PipeOptions options)
        : base(kind, options)
    {
        _handlers = [.. handlers];
        ConsumersPerLane = options.Distribution == PipeDistribution.WorkSharing ? _handlers.Length : 1;
        _lanes = new TLane[_handlers.Length / ConsumersPerLane];
        for (var i = 0; i < _lanes.Length; i++)
        {
            _lanes[i] = new TLane();
        }

        StartConsumerThreads(_handlers.Length, consumer => Consume(_lanes[consumer / ConsumersPerLane], _handlers[consumer]));
    }

    /// <summary>Gets how many consumers take from each lane: 1 for broadcast, all of them for work-sharing.</summary>
    protected int ConsumersPerLane { get; }

    public sealed override bool TryPost(T message)
    {
        if (!_lanes[0].TryEnqueue(message))
        {
            return false;
        }

        // Broadcast: a Complete that overtakes this post between lanes leaves the later lanes closed;
        // those deliveries are counted, never silently lost.
        for (var i = 1; i < _lanes.Length; i++)
        {
            if (!_lanes[i].TryEnqueue(message))
            {
                CountUnhandled(1);
            }
        }

        return true;
    }

    protected sealed override void Close()
    {
        foreach (var lane in _lanes)
        {
            lane.Close();
        }
    }

    /// <summary>One consumer's loop: take from <paramref name="lane"/> until it is closed and empty.</summary>
    protected abstract void Consume(TLane lane, Action<T> handler);
}
