using Concurrency.Messaging.Actors;
using Concurrency.Messaging.Pipes;

namespace Concurrency.Messaging.Grpc;

/// <summary>Ready-made <see cref="PeerHandler"/>s.</summary>
public static class PeerHandlers
{
    /// <summary>The type of the reply <see cref="PostTo(IPipe{PeerMessage})"/> sends.</summary>
    public const string AcceptedType = "accepted";

    /// <summary>Gets a handler that answers each request with the request itself.</summary>
    public static PeerHandler Echo { get; } = static (request, _) => new ValueTask<PeerMessage>(request);

    /// <summary>
    /// Gets a handler that posts each request to <paramref name="pipe"/> (waiting while a bounded pipe is full, which
    /// slows this session's stream, not others) and replies <see cref="AcceptedType"/> once the pipe has accepted it.
    /// A pipe that no longer accepts messages fails the request, and its caller gets a <see cref="PeerRemoteException"/>.
    /// </summary>
    /// <param name="pipe">The pipe that receives the requests.</param>
    /// <returns>The handler.</returns>
    public static PeerHandler PostTo(IPipe<PeerMessage> pipe)
    {
        ArgumentNullException.ThrowIfNull(pipe);
        return async (request, cancellationToken) =>
        {
            await pipe.PostAsync(request, cancellationToken).ConfigureAwait(false);
            return new PeerMessage(AcceptedType, request.Source, ReadOnlyMemory<byte>.Empty);
        };
    }

    /// <summary>
    /// Gets a handler that asks <paramref name="actor"/> (<see cref="ActorRef{T}.Ask{TReply}(T, TimeSpan, CancellationToken)"/>)
    /// and sends its reply back. The actor answers with <c>Context.Reply(message)</c>; one that does not answer within
    /// <paramref name="timeout"/>, throws, or is stopped fails the request, and its caller gets a <see cref="PeerRemoteException"/>.
    /// </summary>
    /// <param name="actor">The actor that answers the requests, one at a time in its mailbox's order.</param>
    /// <param name="timeout">How long a request may wait for the actor's reply.</param>
    /// <returns>The handler.</returns>
    public static PeerHandler AskActor(ActorRef<PeerMessage> actor, TimeSpan timeout)
    {
        ArgumentNullException.ThrowIfNull(actor);
        ArgumentOutOfRangeException.ThrowIfLessThanOrEqual(timeout, TimeSpan.Zero);
        return (request, cancellationToken) => actor.Ask<PeerMessage>(request, timeout, cancellationToken);
    }
}
