using Concurrency.Messaging.Internal;

namespace Concurrency.Messaging.Pipes;

/// <summary>A <see cref="BatchDrainQueue{T}"/> as one lane of a <see cref="LanedQueuePipe{T, TLane}"/>.</summary>
internal sealed class BatchDrainLane<T> : IQueueLane<T>
{
    private BatchDrainQueue<T> _queue; // used in place, never copied

    public bool TryEnqueue(T message) => _queue.TryEnqueue(message);

    public void Close() => _queue.Close();

    /// <inheritdoc cref="BatchDrainQueue{T}.UseScheduledConsumer"/>
    public void UseScheduledConsumer(ITurn consumer) => _queue.UseScheduledConsumer(consumer);

    public TurnTake TryTakeNow(out T message) => _queue.TryTakeOne(out message);

    public bool HasWork() => _queue.HasWork();

    /// <summary>Gets the lane's queue, for its scheduled consumer to take from in place.</summary>
    public ref BatchDrainQueue<T> Queue => ref _queue;
}
