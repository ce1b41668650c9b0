namespace Concurrency.Messaging.Grpc;

/// <summary>A <see cref="SequenceClient"/> asked every replica and none answered (each within its failover timeout), or one answered outside the protocol.</summary>
public sealed class SequenceUnavailableException : Exception
{
    /// <summary>Initializes a new instance with what each replica did.</summary>
    /// <param name="message">What happened.</param>
    public SequenceUnavailableException(string message)
        : base(message)
    {
    }

    /// <summary>Initializes a new instance.</summary>
    public SequenceUnavailableException()
        : this("No replica answered.")
    {
    }

    /// <summary>Initializes a new instance with a message and a cause.</summary>
    /// <param name="message">What happened.</param>
    /// <param name="innerException">The cause.</param>
    public SequenceUnavailableException(string message, Exception innerException)
        : base(message, innerException)
    {
    }
}
