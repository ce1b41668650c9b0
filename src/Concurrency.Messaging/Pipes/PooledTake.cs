namespace Concurrency.Messaging.Pipes;

/// <summary>What a <see cref="PooledConsumer{T}"/>'s look at its queue found, without waiting.</summary>
internal enum PooledTake
{
    /// <summary>One message was taken.</summary>
    Taken,

    /// <summary>Nothing waiting, and the queue is open.</summary>
    Empty,

    /// <summary>The queue is closed and empty: the consumer is done.</summary>
    Completed,
}
