namespace Concurrency.Messaging.Tests.Actors;

/// <summary>
/// Holds an actor inside one message until the test opens the gate, so what the test tells meanwhile waits in the mailbox
/// and the next turn finds all of it at once. <see cref="Entered"/> says the actor is held; disposing opens the gate, so a
/// failed test never leaves a handler waiting.
/// </summary>
internal sealed class HandlerGate : IDisposable
{
    private readonly TaskCompletionSource _entered = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly ManualResetEventSlim _open = new(false);

    /// <summary>Gets a task that completes when a handler is held at the gate.</summary>
    public Task Entered => _entered.Task;

    /// <summary>Called by the handler: signals <see cref="Entered"/>, then waits (bounded) for <see cref="Open"/>.</summary>
    public void Hold()
    {
        _entered.TrySetResult();
        if (!_open.Wait(TestTimeouts.Default))
        {
            throw new TimeoutException("The test never opened the gate.");
        }
    }

    /// <summary>Tells <paramref name="actor"/> <paramref name="held"/>, which its handler holds here, and waits (bounded) until it is held.</summary>
    public async Task HoldAsync<T>(ActorRef<T> actor, T held)
    {
        actor.Tell(held);
        await Entered.DefaultTimeout();
    }

    /// <summary>Wraps <paramref name="receive"/> so that message 0 is first held here: what is told meanwhile waits in the mailbox.</summary>
    public Action<ActorContext<int>, int> HoldingZero(Action<ActorContext<int>, int> receive) => (context, message) =>
    {
        if (message == 0)
        {
            Hold();
        }

        receive(context, message);
    };

    public void Open() => _open.Set();

    public void Dispose() => _open.Set();
}
