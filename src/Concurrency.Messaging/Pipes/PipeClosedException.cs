namespace Concurrency.Messaging.Pipes;

/// <summary>Thrown when a message is posted to a pipe that no longer accepts messages.</summary>
public sealed class PipeClosedException : InvalidOperationException
{
    /// <summary>Initializes a new instance with a default message.</summary>
    public PipeClosedException()
        : base("The pipe no longer accepts messages: it was completed, faulted or aborted.")
    {
    }

    /// <summary>Initializes a new instance with a message.</summary>
    /// <param name="message">The message.</param>
    public PipeClosedException(string message)
        : base(message)
    {
    }

    /// <summary>Initializes a new instance with a message and an inner exception.</summary>
    /// <param name="message">The message.</param>
    /// <param name="innerException">The cause.</param>
    public PipeClosedException(string message, Exception innerException)
        : base(message, innerException)
    {
    }
}
