namespace Concurrency.Messaging.Actors;

/// <summary>A message in a mailbox, with the promise to complete if it was sent by <c>Ask</c>.</summary>
internal struct Envelope<T>
{
    public T Message;
    public AskPromise? Reply;

    public Envelope(T message, AskPromise? reply)
    {
        Message = message;
        Reply = reply;
    }
}
