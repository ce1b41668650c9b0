namespace Concurrency.Messaging.Actors;

/// <summary>What an actor does after its handler threw.</summary>
public enum SupervisionDirective
{
    /// <summary>Keep the actor and its state; go on with the next message.</summary>
    Resume,

    /// <summary>Replace the actor with a fresh one from its factory (fresh state); go on with the next message.</summary>
    Restart,

    /// <summary>Stop the actor: the waiting messages are discarded and <see cref="ActorRef{T}.Termination"/> faults.</summary>
    Stop,
}
