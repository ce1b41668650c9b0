namespace Concurrency.Messaging.Actors;

/// <summary>What happens to the messages in a mailbox when its actor is stopped.</summary>
public enum ActorStopMode
{
    /// <summary>The actor handles every message accepted before the stop, then terminates.</summary>
    Drain,

    /// <summary>
    /// The actor finishes the message it is handling, then terminates; the messages still waiting are counted in
    /// <see cref="ActorRef{T}.DiscardedCount"/> and reported as dead letters (<see cref="ActorSystem.DeadLetters"/>), and
    /// their <c>Ask</c> callers fail with <see cref="ActorStoppedException"/>.
    /// </summary>
    Discard,
}
