namespace Concurrency.Messaging.Actors;

/// <summary>An <c>Ask</c> reached, or was pending at, an actor that stopped before it replied.</summary>
public sealed class ActorStoppedException : InvalidOperationException
{
    /// <summary>Creates the exception for the actor named <paramref name="actor"/>.</summary>
    public ActorStoppedException(string actor)
        : base($"The actor '{actor}' stopped before it replied.")
    {
        Actor = actor;
    }

    /// <summary>Creates the exception with a default message.</summary>
    public ActorStoppedException()
        : this("(unknown)")
    {
    }

    /// <summary>Creates the exception with a message and an inner exception.</summary>
    public ActorStoppedException(string message, Exception innerException)
        : base(message, innerException)
    {
        Actor = "(unknown)";
    }

    /// <summary>Gets the stopped actor's name.</summary>
    public string Actor { get; }
}
