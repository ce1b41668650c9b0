using Concurrency.Messaging.Internal;

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

    /// <summary>Checks an Ask timeout: positive and no longer than a timer accepts, or infinite.</summary>
    /// <exception cref="ArgumentOutOfRangeException">It is neither.</exception>
    public static void ThrowIfBadTimeout(TimeSpan timeout, string paramName)
    {
        if ((timeout <= TimeSpan.Zero || timeout > TimerSpan.Max) && timeout != Timeout.InfiniteTimeSpan)
        {
            throw new ArgumentOutOfRangeException(paramName, timeout, $"The timeout must be positive and at most {TimerSpan.Max} (the longest a timer accepts), or infinite.");
        }
    }
}
