namespace Concurrency.Messaging.Pipes;

/// <summary>What a scheduled consumer's non-waiting take from a <see cref="BatchDrainQueue{T}"/> found.</summary>
internal enum LaneTake
{
    /// <summary>Messages were taken into the batch.</summary>
    Taken,

    /// <summary>One message was taken, on its own rather than in the batch.</summary>
    TakenOne,

    /// <summary>Nothing waiting; the consumer is now marked idle and the next post schedules it.</summary>
    Idle,

    /// <summary>The lane is closed and empty: the consumer is done.</summary>
    Completed,
}
