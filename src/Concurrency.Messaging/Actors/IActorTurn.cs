namespace Concurrency.Messaging.Actors;

/// <summary>An actor's runner as the <see cref="TurnScheduler"/> sees it, whatever the actor's message type.</summary>
internal interface IActorTurn : IThreadPoolWorkItem
{
    /// <summary>Runs one turn: up to the throughput, then yields, goes idle or terminates.</summary>
    void RunTurn();
}
