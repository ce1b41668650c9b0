namespace Concurrency.Messaging.Pipes;

/// <summary>
/// The fault a pipe completes with when a consumer's handler throws. The handler's exception is the
/// <see cref="Exception.InnerException"/>; <see cref="UnhandledCount"/> says how many accepted deliveries were never handled.
/// </summary>
public sealed class MessageHandlerException : Exception
{
    /// <summary>Initializes a new instance with a default message.</summary>
    public MessageHandlerException()
        : base("A message handler threw.")
    {
    }

    /// <summary>Initializes a new instance with a message.</summary>
    /// <param name="message">The message.</param>
    public MessageHandlerException(string message)
        : base(message)
    {
    }

    /// <summary>Initializes a new instance with a message and the handler's exception.</summary>
    /// <param name="message">The message.</param>
    /// <param name="innerException">The handler's exception.</param>
    public MessageHandlerException(string message, Exception innerException)
        : base(message, innerException)
    {
    }

    /// <summary>Initializes a new instance for a handler fault.</summary>
    /// <param name="innerException">The handler's exception.</param>
    /// <param name="unhandledCount">Accepted deliveries never handled, the one that threw included.</param>
    public MessageHandlerException(Exception innerException, long unhandledCount)
        : base($"A message handler threw; {unhandledCount} accepted deliveries were not handled. See the inner exception.", innerException)
    {
        UnhandledCount = unhandledCount;
    }

    /// <summary>Gets the number of accepted deliveries never handled, the one whose handler threw included.</summary>
    public long UnhandledCount { get; }
}
