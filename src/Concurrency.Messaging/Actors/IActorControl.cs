namespace Concurrency.Messaging.Actors;

/// <summary>What the system needs of any actor, whatever its message type: to stop it at shutdown.</summary>
internal interface IActorControl
{
    /// <summary>Stops the actor and returns its termination.</summary>
    Task StopAsync(ActorStopMode mode);

    /// <summary>Gets how many messages the actor's handler returned from (see <see cref="ActorInstruments"/>).</summary>
    long HandledCount { get; }
}
