namespace Concurrency.Messaging.Internal;

/// <summary>
/// What the <see cref="TurnRunner"/> needs from the consumer's owner: how to hand messages over, what stopping and a failure
/// mean, and how the consumer ends. A pipe delivers to its handler and counts after a stop; an actor hands over to its
/// behaviour under its supervisor. Implemented by structs over the owner, so the runner's loop calls them directly.
/// </summary>
/// <typeparam name="T">The message type.</typeparam>
internal interface ITurnOwner<T>
{
    /// <summary>Gets whether the consumer, having found its queue empty, should look again a few times before going idle (see <see cref="IdleWait"/>).</summary>
    bool LooksBeforeIdle { get; }

    /// <summary>Gets whether messages are no longer handled, only counted off (a faulted or aborted pipe, an actor discarding).</summary>
    bool IsStopping { get; }

    /// <summary>Gets whether the last message is still being handled (an async handler awaits): the turn must end.</summary>
    bool IsSuspended { get; }

    /// <summary>
    /// Hands over <c>batch[next..end)</c>, advancing <paramref name="next"/> past each message before handing it over, so
    /// that after a throw it points past the message that threw. Returns early once stopping or suspended.
    /// </summary>
    void Deliver(Slot<T>[] batch, ref int next, int end);

    /// <summary>Hands over one message.</summary>
    void DeliverOne(in T message);

    /// <summary>Counts off <c>batch[next..end)</c> without handling it: the consumer is stopping.</summary>
    void Unhandled(Slot<T>[] batch, int next, int end);

    /// <summary>Counts off one message without handling it: the consumer is stopping.</summary>
    void UnhandledOne(in T message);

    /// <summary>
    /// Counts <paramref name="count"/> messages handed over whose handler returned. The running turn only, once per turn or
    /// batch and before the turn lets go of the consumer, so a plain add suffices (the next turn's thread sees it through
    /// the hand-over's fence); readers on other threads read it with <see cref="Volatile"/>.
    /// </summary>
    void Handled(int count);

    /// <summary>A handler threw: the message that threw is lost; the owner faults or supervises.</summary>
    void Failed(Exception exception);

    /// <summary>The turn's last act when <see cref="IsSuspended"/>: arranges for the next turn once the handler completes.</summary>
    void Suspended();

    /// <summary>The turn's last act when the queue is closed and empty: the consumer never runs again.</summary>
    void Completed();

    /// <summary>The turn's last act when the queue itself threw (not a handler): the consumer never runs again.</summary>
    void QueueFailed(Exception exception);
}
