namespace Concurrency.Messaging.Pipes;

/// <summary>
/// Moves messages from producer threads to consumer handlers that run on other threads.
/// </summary>
/// <typeparam name="T">The message type.</typeparam>
/// <remarks>
/// <para>
/// Messages from one producer are handled in the order that producer posted them, and with broadcast every consumer
/// handles the messages in the same order. A message accepted by
/// <see cref="TryPost"/>, <see cref="Post"/> or <see cref="PostAsync"/> is handled exactly once per consumer
/// (broadcast) or exactly once in all (work-sharing), unless the pipe faults or is aborted, in which case the
/// messages left unhandled are counted in <see cref="UnhandledCount"/>; messages dropped by a bounded pipe's
/// full mode are counted in <see cref="DroppedCount"/>. Nothing is lost silently.
/// </para>
/// <para>
/// <see cref="IAsyncDisposable.DisposeAsync"/> completes the pipe and waits for the consumers to drain what was accepted.
/// </para>
/// </remarks>
public interface IPipe<T> : IAsyncDisposable
{
    /// <summary>Gets the implementation behind this pipe.</summary>
    PipeKind Kind { get; }

    /// <summary>Posts a message without waiting.</summary>
    /// <param name="message">The message.</param>
    /// <returns><see langword="true"/> if the pipe accepted the message; <see langword="false"/> if a bounded pipe
    /// is full or the pipe no longer accepts messages (completed, faulted or aborted).</returns>
    bool TryPost(T message);

    /// <summary>Posts a message, blocking the calling thread while a bounded pipe is full.</summary>
    /// <param name="message">The message.</param>
    /// <param name="cancellationToken">Cancels the post: one already cancelled is refused before anything is posted, as
    /// <see cref="PostAsync"/> refuses it, bounded or not; one cancelled later cancels the wait for room.</param>
    /// <exception cref="PipeClosedException">The pipe no longer accepts messages.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled before the call or while
    /// waiting for room; the message was not posted.</exception>
    void Post(T message, CancellationToken cancellationToken = default);

    /// <summary>Posts a message, waiting asynchronously while a bounded pipe is full.</summary>
    /// <param name="message">The message.</param>
    /// <param name="cancellationToken">Cancels the wait for room.</param>
    /// <returns>A task that completes when the pipe has accepted the message.</returns>
    /// <exception cref="PipeClosedException">The pipe no longer accepts messages.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled while waiting for room.</exception>
    ValueTask PostAsync(T message, CancellationToken cancellationToken = default);

    /// <summary>Stops accepting messages; the consumers drain what was accepted, then <see cref="Completion"/> finishes.</summary>
    /// <returns><see langword="true"/> if this call completed the pipe; <see langword="false"/> if it was already completed, faulted or aborted.</returns>
    bool TryComplete();

    /// <summary>Stops accepting messages; the consumers drain what was accepted, then <see cref="Completion"/> finishes.</summary>
    /// <exception cref="InvalidOperationException">The pipe was already completed, faulted or aborted.</exception>
    void Complete();

    /// <summary>
    /// Gets a task that finishes after the last accepted message was handled, faults with a
    /// <see cref="MessageHandlerException"/> if a handler threw, or is cancelled if the pipe was aborted. If the queue
    /// itself throws in a consumer run as pool turns (<see cref="PipeRunner.ThreadPool"/>), it faults with an
    /// <see cref="InvalidOperationException"/> that says so and carries the queue's exception: what the broken queue still
    /// held is not counted.
    /// </summary>
    Task Completion { get; }

    /// <summary>Gets the number of messages a bounded pipe dropped because of its <see cref="PipeFullMode"/>.</summary>
    long DroppedCount { get; }

    /// <summary>
    /// Gets the number of accepted deliveries that were never handled because the pipe faulted or was aborted
    /// (one per message per consumer for broadcast). Final once <see cref="Completion"/> has finished.
    /// </summary>
    long UnhandledCount { get; }
}
