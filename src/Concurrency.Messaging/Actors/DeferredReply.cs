namespace Concurrency.Messaging.Actors;

/// <summary>An <c>Ask</c>'s reply taken out of the actor's turn with <see cref="ActorContext{T}.DeferReply{TReply}"/>, to complete later from any thread.</summary>
/// <typeparam name="TReply">The reply type.</typeparam>
public sealed class DeferredReply<TReply>
{
    private readonly AskPromise<TReply> _promise;
    private readonly Action<AskPromise> _completed; // removes the promise from its actor's pending set

    internal DeferredReply(AskPromise<TReply> promise, Action<AskPromise> completed)
    {
        _promise = promise;
        _completed = completed;
    }

    /// <summary>Completes the caller's <c>Ask</c> with <paramref name="reply"/>.</summary>
    /// <returns><see langword="false"/> if the Ask had already ended (replied, failed, timed out, cancelled or its actor stopped).</returns>
    public bool TryReply(TReply reply)
    {
        var done = _promise.TrySetResult(reply);
        _completed(_promise);
        return done;
    }

    /// <summary>Fails the caller's <c>Ask</c> with <paramref name="exception"/>.</summary>
    /// <returns><see langword="false"/> if the Ask had already ended.</returns>
    public bool TryFail(Exception exception)
    {
        ArgumentNullException.ThrowIfNull(exception);
        var done = _promise.TryFail(exception);
        _completed(_promise);
        return done;
    }
}
