namespace Concurrency.Messaging.Actors;

/// <summary>
/// The reply an <c>Ask</c> waits for, carried in the request's envelope. Exactly one of reply, failure, timeout and
/// cancellation completes it: the first wins (an Interlocked flag), the rest are ignored.
/// </summary>
internal abstract class AskPromise
{
    /// <summary>Gets the reply type, for a clear error when the actor replies with another.</summary>
    public abstract Type ReplyType { get; }

    /// <summary>Fails the caller, unless the promise was already completed.</summary>
    public abstract bool TryFail(Exception exception);
}
