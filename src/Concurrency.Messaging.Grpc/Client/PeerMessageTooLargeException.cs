namespace Concurrency.Messaging.Grpc;

/// <summary>
/// A message was refused before it was written because it is larger than the limit. A message over gRPC's own limit
/// would end the whole stream for every caller, so the client checks first and refuses only this one.
/// </summary>
public sealed class PeerMessageTooLargeException : ArgumentException
{
    /// <summary>Initializes a new instance for a message of <paramref name="size"/> bytes against <paramref name="limit"/>.</summary>
    /// <param name="size">The message's size on the wire, in bytes.</param>
    /// <param name="limit">The limit, in bytes.</param>
    public PeerMessageTooLargeException(int size, int limit)
        : base($"The message takes {size:N0} bytes on the wire; the limit (PeerClientOptions.MaxMessageBytes) is {limit:N0}. It was not sent.", "message")
    {
        Size = size;
        Limit = limit;
    }

    /// <summary>Initializes a new instance (for serializers and tests).</summary>
    public PeerMessageTooLargeException()
        : base("The message is larger than the limit. It was not sent.")
    {
    }

    /// <summary>Initializes a new instance with a message.</summary>
    /// <param name="message">What happened.</param>
    public PeerMessageTooLargeException(string message)
        : base(message)
    {
    }

    /// <summary>Initializes a new instance with a message and a cause.</summary>
    /// <param name="message">What happened.</param>
    /// <param name="innerException">The cause.</param>
    public PeerMessageTooLargeException(string message, Exception innerException)
        : base(message, innerException)
    {
    }

    /// <summary>Gets the message's size on the wire, in bytes.</summary>
    public int Size { get; }

    /// <summary>Gets the limit it exceeded, in bytes.</summary>
    public int Limit { get; }
}
