namespace Concurrency.Messaging.Internal;

/// <summary>A consumer run as turns by the <see cref="TurnRunner"/>: a pipe's pooled consumer, an actor's mailbox.</summary>
internal interface ITurn : IThreadPoolWorkItem
{
    /// <summary>
    /// Queues one turn. Called exactly once each time the consumer goes from idle to having work (its queue decides, see
    /// <see cref="ITurnQueue{T}"/>), so a turn is never queued twice and never missed.
    /// </summary>
    void Schedule();

    /// <summary>Runs one turn: up to the owner's budget, then yields, goes idle or finishes.</summary>
    void RunTurn();
}
