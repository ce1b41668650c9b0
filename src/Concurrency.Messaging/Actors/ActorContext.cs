namespace Concurrency.Messaging.Actors;

/// <summary>What a running actor can do besides handling its message: reply to an <c>Ask</c>, tell itself, stop.</summary>
/// <typeparam name="T">The actor's message type.</typeparam>
public readonly struct ActorContext<T> : IEquatable<ActorContext<T>>
{
    private readonly ActorCell<T> _cell;

    internal ActorContext(ActorCell<T> cell) => _cell = cell;

    /// <summary>Gets the running actor's own reference.</summary>
    public ActorRef<T> Self => _cell.Self;

    /// <summary>Gets whether the message being handled was sent with <c>Ask</c> and still awaits its reply.</summary>
    public bool HasPendingReply => _cell.CurrentReply is not null;

    /// <summary>Gets whether this context was given to a behaviour by its cell (a default one was not).</summary>
    internal bool IsAttached => _cell is not null;

    /// <summary>Gets whether the actor discards what is left instead of handling it: the behaviour stops taking messages from its batch.</summary>
    internal bool IsDiscarding => _cell.IsDiscarding;

    /// <summary>Replies to the <c>Ask</c> being handled.</summary>
    /// <typeparam name="TReply">The reply type; must be the type the caller asked for.</typeparam>
    /// <param name="reply">The reply.</param>
    /// <exception cref="InvalidOperationException">The message being handled was not sent with <c>Ask</c>, was already
    /// replied to, or the caller asked for another reply type.</exception>
    public void Reply<TReply>(TReply reply) => _cell.TakeReply<TReply>().TrySetResult(reply);

    /// <summary>
    /// Takes the <c>Ask</c> being handled out of the turn, to reply later (from this actor or another). Until it is
    /// completed it counts as pending: if this actor stops first, the caller fails with <see cref="ActorStoppedException"/>.
    /// </summary>
    /// <typeparam name="TReply">The reply type; must be the type the caller asked for.</typeparam>
    /// <exception cref="InvalidOperationException">As for <see cref="Reply{TReply}"/>.</exception>
    public DeferredReply<TReply> DeferReply<TReply>() => _cell.Defer(_cell.TakeReply<TReply>());

    /// <summary>Stops the actor after the current message; see <see cref="ActorRef{T}.Stop"/>.</summary>
    public void Stop(ActorStopMode mode = ActorStopMode.Discard) => _cell.Self.Stop(mode);

    /// <summary>The behaviour is about to handle a message: <paramref name="reply"/> is its request's reply, pending. Turn only.</summary>
    internal void BeginMessage(AskPromise? reply) => _cell.CurrentReply = reply;

    /// <summary>The behaviour's handler returned (see <see cref="ActorCell{T}.EndMessage"/>): <see langword="false"/> if it awaits.</summary>
    internal bool EndMessage() => _cell.EndMessage();

    /// <summary>The behaviour's handler awaits (see <see cref="ActorCell{T}.Suspend"/>).</summary>
    internal void Suspend() => _cell.Suspend();

    /// <inheritdoc/>
    public bool Equals(ActorContext<T> other) => ReferenceEquals(_cell, other._cell);

    /// <inheritdoc/>
    public override bool Equals(object? obj) => obj is ActorContext<T> other && Equals(other);

    /// <inheritdoc/>
    public override int GetHashCode() => _cell?.GetHashCode() ?? 0;

    /// <summary>Compares two contexts by the actor they belong to.</summary>
    public static bool operator ==(ActorContext<T> left, ActorContext<T> right) => left.Equals(right);

    /// <summary>Compares two contexts by the actor they belong to.</summary>
    public static bool operator !=(ActorContext<T> left, ActorContext<T> right) => !left.Equals(right);
}
