namespace Concurrency.Messaging.Internal;

/// <summary>
/// A consumer the <see cref="TurnRunner"/> runs: a pipe's consumer (as pool turns or on a thread of its own), an actor's
/// mailbox.
/// </summary>
internal interface ITurn : IThreadPoolWorkItem
{
    /// <summary>
    /// Queues one turn, or wakes the consumer's parked thread. Called exactly once each time the consumer goes from idle to
    /// having work (its queue decides, see <see cref="ITurnQueue{T}"/>), so a turn is never queued twice and never missed.
    /// </summary>
    void Schedule();

    /// <summary>Runs one turn: up to the owner's budget, then yields, goes idle or finishes.</summary>
    void RunTurn();
}
