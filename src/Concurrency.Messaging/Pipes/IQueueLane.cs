using Concurrency.Messaging.Internal;

namespace Concurrency.Messaging.Pipes;

/// <summary>One unbounded queue of a <see cref="LanedQueuePipe{T, TLane}"/>, with closing atomic with enqueueing.</summary>
internal interface IQueueLane<T>
{
    /// <returns><see langword="false"/> once the lane is closed.</returns>
    bool TryEnqueue(T message);

    /// <summary>Refuses further messages and wakes every parked consumer.</summary>
    void Close();

    /// <summary>For a consumer run as pooled turns: takes one message without waiting (<see cref="TurnTake.TakenOne"/>), or says the lane is <see cref="TurnTake.Empty"/> or <see cref="TurnTake.Completed"/>.</summary>
    TurnTake TryTakeNow(out T message);

    /// <summary>For a consumer run as pooled turns: whether a message is waiting or the lane is closed.</summary>
    bool HasWork();
}
