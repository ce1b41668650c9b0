namespace Concurrency.Messaging.Pipes;

/// <summary>What a bounded pipe does with a message posted while it is full.</summary>
public enum PipeFullMode
{
    /// <summary>The producer waits for room (<see cref="IPipe{T}.TryPost"/> returns <see langword="false"/>).</summary>
    Wait,

    /// <summary>The oldest queued message is dropped and counted in <see cref="IPipe{T}.DroppedCount"/>.</summary>
    DropOldest,

    /// <summary>The newest queued message is dropped and counted in <see cref="IPipe{T}.DroppedCount"/>.</summary>
    DropNewest,
}
