using Concurrency.Messaging.Internal;

namespace Concurrency.Messaging.Actors;

/// <summary>
/// The queue under a <see cref="Mailbox{T, TQueue}"/>, one struct per <see cref="MailboxKind"/>: how a post goes in and
/// wakes the idle actor, how a full queue makes room, how it closes, and (as an <see cref="ITurnQueue{T}"/>) how the turn
/// takes from it. Held in place by its mailbox, so that the mailbox and the runner's loop are compiled for each queue and
/// every call here is direct.
/// </summary>
/// <typeparam name="T">The actor's message type.</typeparam>
/// <remarks>
/// A queue refuses a post when it is full or closed, and says nothing about which: it is closed only after the actor
/// stopped accepting, so the address (<see cref="LocalActorRef{T, TQueue}"/>) tells the two apart by the actor's state.
/// </remarks>
internal interface IMailboxQueue<T> : ITurnQueue<Envelope<T>>
{
    /// <summary>Gets the kind of queue, for <see cref="ActorRef{T}.MailboxKind"/>.</summary>
    static abstract MailboxKind Kind { get; }

    /// <summary>Makes the queue in place, for the actor's options, before the first post; <paramref name="actor"/> is the turn a post schedules.</summary>
    void Open(ActorOptions options, ITurn actor);

    /// <summary>Offers a message without waiting; once it is in, schedules <paramref name="actor"/> if it was idle. Any thread.</summary>
    /// <returns><see langword="false"/> if the queue is full or closed: the message is not in it.</returns>
    bool TryPost(in Envelope<T> envelope, ITurn actor);

    /// <summary>
    /// After <see cref="TryPost"/> refused: waits for the queue to make room. A queue that hands a waiting message over as
    /// room is made (a channel's writer) posts it itself. What it returns touches nothing of this struct after its first
    /// await, since the struct lives inside its mailbox.
    /// </summary>
    ValueTask<RoomWait> WaitForRoomAsync(Envelope<T> envelope, CancellationToken cancellationToken);

    /// <summary>After a wait that posted (<see cref="RoomWait.Posted"/>): schedules <paramref name="actor"/> if it was idle, as <see cref="TryPost"/> does.</summary>
    void WakeAfterWait(ITurn actor);

    /// <summary>
    /// Refuses further posts and wakes the senders waiting for room; the turn drains what was accepted, then finds the
    /// queue completed. Called once, after the actor stopped accepting.
    /// </summary>
    void Close(ITurn actor);
}

/// <summary>What a wait for room in a full mailbox ended with (see <see cref="IMailboxQueue{T}.WaitForRoomAsync"/>).</summary>
internal enum RoomWait
{
    /// <summary>Room was made: post again (another sender may take it first).</summary>
    Room,

    /// <summary>The wait posted the message itself.</summary>
    Posted,

    /// <summary>The queue closed: the message is not in it.</summary>
    Closed,
}
