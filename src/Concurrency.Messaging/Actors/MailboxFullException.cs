namespace Concurrency.Messaging.Actors;

/// <summary>A message was told to a full bounded mailbox whose <see cref="MailboxFullMode"/> is <see cref="MailboxFullMode.Reject"/>.</summary>
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

    /// <summary>Gets the actor whose mailbox was full.</summary>
    public string Actor { get; }
}
