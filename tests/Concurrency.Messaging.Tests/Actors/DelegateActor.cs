namespace Concurrency.Messaging.Tests.Actors;

/// <summary>An actor whose handler is a delegate given the actor's context, so a test states the behaviour it needs inline.</summary>
/// <typeparam name="T">The message type.</typeparam>
internal sealed class DelegateActor<T>(Action<ActorContext<T>, T> receive) : Actor<T>
{
    protected internal override void Receive(T message) => receive(Context, message);
}
