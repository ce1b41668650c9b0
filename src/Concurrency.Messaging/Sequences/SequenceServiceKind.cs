namespace Concurrency.Messaging.Sequences;

/// <summary>How a sequence service serializes its requests: the four servers of the seed's throughput appendix.</summary>
public enum SequenceServiceKind
{
    /// <summary>One lock over the whole service: each request is checked, applied and answered under it.</summary>
    Simple,

    /// <summary>A lock on the counter only: checks and the answer are made outside it.</summary>
    Sequence,

    /// <summary>
    /// Requests go through an actor's mailbox: each is an <c>Ask</c> that the actor answers on its turn (an update is
    /// answered once applied). Needs an <see cref="Actors.ActorSystem"/>; the mailbox kind is selectable.
    /// </summary>
    Actor,

    /// <summary>
    /// The actor's event handler without the mailbox: each request is an event dispatched through a mutex (an async one,
    /// a <see cref="SemaphoreSlim"/> of one) and handled by the caller while it holds the mutex.
    /// </summary>
    Locker,
}
