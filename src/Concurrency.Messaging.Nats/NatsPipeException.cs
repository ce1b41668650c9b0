namespace Concurrency.Messaging.Nats;

/// <summary>
/// A pipe over NATS could not do what it promises: no server answered in time, the server refused a message (a full
/// stream, a JetStream server that is not enabled), or a message was not confirmed before
/// <see cref="NatsPipeOptions.ServerTimeout"/>. Its message names the server without credentials.
/// </summary>
public sealed class NatsPipeException : Exception
{
    /// <summary>Initializes a new instance with a default message.</summary>
    public NatsPipeException()
        : base("A pipe over NATS failed.")
    {
    }

    /// <summary>Initializes a new instance with a message.</summary>
    /// <param name="message">The message.</param>
    public NatsPipeException(string message)
        : base(message)
    {
    }

    /// <summary>Initializes a new instance with a message and its cause.</summary>
    /// <param name="message">The message.</param>
    /// <param name="innerException">The cause.</param>
    public NatsPipeException(string message, Exception innerException)
        : base(message, innerException)
    {
    }
}
