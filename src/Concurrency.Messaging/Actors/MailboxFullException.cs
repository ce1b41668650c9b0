namespace Concurrency.Messaging.Actors;

/// <summary>
/// A message was told to a full bounded mailbox whose <see cref="MailboxFullMode"/> is <see cref="MailboxFullMode.Reject"/>,
/// or told with <see cref="ActorRef{T}.Tell"/> from inside an actor's turn to a full mailbox whose mode is
/// <see cref="MailboxFullMode.Wait"/> (a turn never blocks its thread waiting for room).
/// </summary>
public sealed class MailboxFullException : InvalidOperationException
{
    /// <summary>Creates the exception for the actor named <paramref name="actor"/>.</summary>
    public MailboxFullException(string actor)
        : base($"The mailbox of actor '{actor}' is full; the message was not accepted.")
    {
        Actor = actor;
    }

    /// <summary>Creates the exception with a default message.</summary>
    public MailboxFullException()
        : this("(unknown)")
    {
    }

    /// <summary>Creates the exception with a message and an inner exception.</summary>
    public MailboxFullException(string message, Exception innerException)
        : base(message, innerException)
    {
        Actor = "(unknown)";
    }

    private MailboxFullException(string actor, string message)
        : base(message)
    {
        Actor = actor;
    }

    /// <summary>Gets the actor whose mailbox was full.</summary>
    public string Actor { get; }

    /// <summary>The error of a <see cref="ActorRef{T}.Tell"/> from inside a turn into a full mailbox that would wait for room.</summary>
    internal static MailboxFullException InsideTurn(string actor) => new(
        actor,
        $"The mailbox of actor '{actor}' is full and the Tell came from inside an actor's turn, which must not block its thread "
        + "waiting for room: the actor it waits for may be waiting for this turn (itself, or a peer telling back into a full "
        + "mailbox), and the turn holds a pool thread meanwhile. The message was not accepted. Use TryTell and handle a refusal, "
        + "or send from an async receive (AsyncActor<T>.ReceiveAsync) with await TellAsync, whose wait for room holds no thread, "
        + "or give the mailbox more room.");
}
