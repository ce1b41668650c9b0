namespace Concurrency.Messaging.Actors;

/// <summary>
/// The reference a spawn returns, whatever its mailbox's queue: the actor's <see cref="ActorCell{T}"/>, which it reads
/// and stops, and its face to the system that spawned it (<see cref="IActorControl"/>). The address rules, over the
/// mailbox, are <see cref="LocalActorRef{T, TQueue}"/>'s. The behaviour answers to the same reference across restarts.
/// </summary>
internal abstract class LocalActorRef<T> : ActorRef<T>, IActorControl
{
    private protected LocalActorRef(ActorSystem system, Func<Actor<T>> factory, ActorOptions options, long id) =>
        Cell = new ActorCell<T>(system, factory, options, id, this);

    public override bool IsStopped => Cell.IsStopped;

    public override long DiscardedCount => Cell.DiscardedCount;

    public override Task Termination => Cell.Termination;

    public abstract long HandledCount { get; }

    /// <summary>Gets the actor's cell: its state, which the address rules read, and its way to stopping.</summary>
    private protected ActorCell<T> Cell { get; }

    private protected override string NameCore => Cell.Name;

    /// <summary>Creates the first behaviour: once constructed, before the first post. The factory's exception propagates.</summary>
    public void Start() => Cell.Start();

    Task IActorControl.StopAsync(ActorStopMode mode)
    {
        StopCore(mode);
        return Termination;
    }
}
