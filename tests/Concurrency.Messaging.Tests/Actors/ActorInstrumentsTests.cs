namespace Concurrency.Messaging.Tests.Actors;

/// <summary>The actors' instruments on the library's meter, read as a user would with a <see cref="System.Diagnostics.Metrics.MeterListener"/>.</summary>
[Collection(nameof(LibraryInstruments))]
public sealed class ActorInstrumentsTests
{
    [Fact]
    public async Task Meter_ActorsHandleFailAndDiscard_InstrumentsShowThem()
    {
        using var recorder = new MeterRecorder();
        var (alive, handled) = (recorder.Observe("concurrency.actor.alive"), recorder.Observe("concurrency.actor.messages.handled"));
        using var gate = new HandlerGate();
        var system = new ActorSystem();
        var counter = system.Spawn<int>(() => new DelegateActor<int>((_, message) =>
        {
            if (message < 0)
            {
                throw new InvalidOperationException("counted as a failure");
            }
        }));
        var held = system.Spawn<int>(() => new DelegateActor<int>((_, _) => gate.Hold()));

        for (var i = 0; i < 100; i++)
        {
            counter.Tell(i);
        }

        counter.Tell(-1);
        await gate.HoldAsync(held, 0);
        for (var i = 0; i < 10; i++)
        {
            held.Tell(i); // waits in the mailbox behind the held message
        }

        Assert.Equal(2, recorder.Observe("concurrency.actor.alive") - alive); // alone in the process (LibraryInstruments): ours

        held.Stop(ActorStopMode.Discard);
        gate.Open();
        await held.Termination.DefaultTimeout();
        held.Tell(99); // a dead letter

        // The shutdown drains and terminates every actor, so what they handled is final and in the retired total.
        await system.ShutdownAsync(ActorStopMode.Drain, TestContext.Current.CancellationToken).DefaultTimeout();

        Assert.Equal(10, held.DiscardedCount);
        Assert.Equal(101, recorder.Observe("concurrency.actor.messages.handled") - handled); // counter's 100, held's first
        Assert.Equal(1, recorder.Total("concurrency.actor.failures"));
        Assert.Equal(10, recorder.Total("concurrency.actor.messages.discarded"));
        Assert.Equal(11, recorder.Total("concurrency.actor.dead_letters")); // the ten discarded, and the late one
    }
}
