namespace Concurrency.Messaging.Grpc;

/// <summary>How <see cref="SendBuffer.Add"/> placed a send.</summary>
internal enum SendAdmission
{
    /// <summary>In the buffer, to be written.</summary>
    Added,

    /// <summary>Waiting for room; the pump lets it in later, or its caller's token or the client's closing refuses it.</summary>
    Waiting,

    /// <summary>Refused: the buffer is completed. The send was not taken.</summary>
    Closed,
}
