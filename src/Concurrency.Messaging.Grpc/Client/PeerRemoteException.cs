namespace Concurrency.Messaging.Grpc;

/// <summary>
/// The server received the message but could not answer it: its handler threw, or its reply was larger than the server
/// allows. Only this message failed; the stream and the other messages go on.
/// </summary>
public sealed class PeerRemoteException : Exception
{
    /// <summary>Initializes a new instance with the server's description of the failure.</summary>
    /// <param name="message">The server's description.</param>
    public PeerRemoteException(string message)
        : base(message)
    {
    }

    /// <summary>Initializes a new instance (for serializers and tests).</summary>
    public PeerRemoteException()
        : this("The server failed to handle the message.")
    {
    }

    /// <summary>Initializes a new instance with a message and a cause.</summary>
    /// <param name="message">What happened.</param>
    /// <param name="innerException">The cause.</param>
    public PeerRemoteException(string message, Exception innerException)
        : base(message, innerException)
    {
    }
}
