namespace Concurrency.Messaging.Actors;

/// <summary>What a running actor can do besides handling its message: reply to an <c>Ask</c>, tell itself, stop.</summary>
/// <typeparam name="T">The actor's message type.</typeparam>
public readonly struct ActorContext<T> : IEquatable<ActorContext<T>>
{
    private readonly LocalActorRef<T> _self;

    internal ActorContext(LocalActorRef<T> self) => _self = self;

    /// <summary>Gets the running actor's own reference.</summary>
    public ActorRef<T> Self => _self;

    /// <summary>Gets whether the message being handled was sent with <c>Ask</c> and still awaits its reply.</summary>
    public bool HasPendingReply => Cell.CurrentReply is not null;

    private ref ActorCell<T> Cell => ref _self.Mailbox.Cell;

    /// <summary>Replies to the <c>Ask</c> being handled.</summary>
    /// <typeparam name="TReply">The reply type; must be the type the caller asked for.</typeparam>
    /// <param name="reply">The reply.</param>
    /// <exception cref="InvalidOperationException">The message being handled was not sent with <c>Ask</c>, was already
    /// replied to, or the caller asked for another reply type.</exception>
    public void Reply<TReply>(TReply reply) => Cell.TakeReply<TReply>().TrySetResult(reply);

    /// <summary>
    /// Takes the <c>Ask</c> being handled out of the turn, to reply later (from this actor or another). Until it is
    /// completed it counts as pending: if this actor stops first, the caller fails with <see cref="ActorStoppedException"/>.
    /// </summary>
    /// <typeparam name="TReply">The reply type; must be the type the caller asked for.</typeparam>
    /// <exception cref="InvalidOperationException">As for <see cref="Reply{TReply}"/>.</exception>
    public DeferredReply<TReply> DeferReply<TReply>() => Cell.Defer(Cell.TakeReply<TReply>(), _self.Name);

    /// <summary>Stops the actor after the current message; see <see cref="ActorRef{T}.Stop"/>.</summary>
    public void Stop(ActorStopMode mode = ActorStopMode.Discard) => _self.Stop(mode);

    /// <inheritdoc/>
    public bool Equals(ActorContext<T> other) => ReferenceEquals(_self, other._self);

    /// <inheritdoc/>
    public override bool Equals(object? obj) => obj is ActorContext<T> other && Equals(other);

    /// <inheritdoc/>
    public override int GetHashCode() => _self?.GetHashCode() ?? 0;

    /// <summary>Compares two contexts by the actor they belong to.</summary>
    public static bool operator ==(ActorContext<T> left, ActorContext<T> right) => left.Equals(right);

    /// <summary>Compares two contexts by the actor they belong to.</summary>
    public static bool operator !=(ActorContext<T> left, ActorContext<T> right) => !left.Equals(right);
}
