namespace Concurrency.Messaging.Actors;

/// <summary>
/// The reference a spawn returns, whatever its mailbox's queue: what it reads of the actor's <see cref="ActorCell{T}"/>,
/// and its face to the system that spawned it (<see cref="IActorControl"/>). The address rules, over the mailbox, are
/// <see cref="LocalActorRef{T, TQueue}"/>'s. The behaviour answers to the same reference across restarts.
/// </summary>
internal abstract class LocalActorRef<T> : ActorRef<T>, IActorControl
{
    public override bool IsStopped => Cell.IsStopped;

    public override long DiscardedCount => Cell.DiscardedCount;

    public override Task Termination => Cell.Termination;

    public abstract long HandledCount { get; }

    /// <summary>Gets the actor's cell: its state, which the address rules read, and its way to stopping. Held by the mailbox.</summary>
    private protected abstract ActorCell<T> Cell { get; }

    private protected override string NameCore => Cell.Name;

    /// <summary>Creates the first behaviour: once constructed, before the first post. The factory's exception propagates.</summary>
    public void Start() => Cell.Start();

    Task IActorControl.StopAsync(ActorStopMode mode)
    {
        StopCore(mode);
        return Termination;
    }
}
