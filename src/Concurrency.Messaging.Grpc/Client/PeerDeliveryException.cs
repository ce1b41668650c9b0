namespace Concurrency.Messaging.Grpc;

/// <summary>
/// A message sent through a <see cref="PeerClient"/> got no reply, for the <see cref="Reason"/> given. The client never
/// drops a message silently: every send ends in a reply, this exception, a <see cref="PeerRemoteException"/>, or a
/// cancellation the caller asked for.
/// </summary>
public sealed class PeerDeliveryException : Exception
{
    /// <summary>Initializes a new instance with a reason and a message.</summary>
    /// <param name="reason">Why the send failed.</param>
    /// <param name="message">What happened, for a person.</param>
    /// <param name="innerException">The last transport error, if any.</param>
    public PeerDeliveryException(PeerDeliveryFailure reason, string message, Exception? innerException = null)
        : base(message, innerException) => Reason = reason;

    /// <summary>Initializes a new instance (for serializers and tests); <see cref="Reason"/> is <see cref="PeerDeliveryFailure.Closed"/>.</summary>
    public PeerDeliveryException()
        : this(PeerDeliveryFailure.Closed, "The message was not delivered.")
    {
    }

    /// <summary>Initializes a new instance with a message; <see cref="Reason"/> is <see cref="PeerDeliveryFailure.Closed"/>.</summary>
    /// <param name="message">What happened.</param>
    public PeerDeliveryException(string message)
        : this(PeerDeliveryFailure.Closed, message)
    {
    }

    /// <summary>Initializes a new instance with a message and a cause; <see cref="Reason"/> is <see cref="PeerDeliveryFailure.Closed"/>.</summary>
    /// <param name="message">What happened.</param>
    /// <param name="innerException">The cause.</param>
    public PeerDeliveryException(string message, Exception innerException)
        : this(PeerDeliveryFailure.Closed, message, innerException)
    {
    }

    /// <summary>Gets why the send failed.</summary>
    public PeerDeliveryFailure Reason { get; }
}
