namespace Concurrency.Messaging.Pipes;

/// <summary>One unbounded queue of a <see cref="LanedQueuePipe{T, TLane}"/>, with closing atomic with enqueueing.</summary>
internal interface IQueueLane<in T>
{
    /// <returns><see langword="false"/> once the lane is closed.</returns>
    bool TryEnqueue(T message);

    /// <summary>Refuses further messages and wakes every parked consumer.</summary>
    void Close();
}
