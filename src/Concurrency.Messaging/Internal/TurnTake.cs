namespace Concurrency.Messaging.Internal;

/// <summary>What a consumer's take from its <see cref="ITurnQueue{T}"/> found, without waiting.</summary>
internal enum TurnTake
{
    /// <summary>Messages were taken into the batch.</summary>
    Taken,

    /// <summary>One message was taken, on its own rather than in the batch.</summary>
    TakenOne,

    /// <summary>Nothing waiting, and the consumer was not marked idle (the take was asked not to).</summary>
    Empty,

    /// <summary>Nothing waiting: the consumer is now marked idle and the next post schedules it. The turn must end at once.</summary>
    Idle,

    /// <summary>The queue is closed and empty: the consumer is done.</summary>
    Completed,
}
