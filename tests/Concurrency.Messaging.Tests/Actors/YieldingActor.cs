namespace Concurrency.Messaging.Tests.Actors;

/// <summary>
/// An async actor whose handler first gives its thread back (<see cref="Task.Yield"/>: the rest runs later, on a pool
/// thread, outside the turn) and then runs the delegate, so every message is handled across an await.
/// </summary>
/// <typeparam name="T">The message type.</typeparam>
internal sealed class YieldingActor<T>(Action<ActorContext<T>, T> receive) : AsyncActor<T>
{
    protected override async ValueTask ReceiveAsync(T message)
    {
        await Task.Yield();
        receive(Context, message);
    }
}
