using Concurrency.Messaging.Actors;
using Xunit;

namespace Concurrency.Messaging.Tests.Actors;

/// <summary>The actors' instruments on the library's meter, read as a user would with a <see cref="System.Diagnostics.Metrics.MeterListener"/>.</summary>
public sealed class ActorInstrumentsTests
{
    [Fact]
    public async Task Meter_ActorsHandleFailAndDiscard_InstrumentsShowThem()
    {
        using var recorder = new MeterRecorder();
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
        held.Tell(0);
        await gate.Entered.DefaultTimeout();
        for (var i = 0; i < 10; i++)
        {
            held.Tell(i); // waits in the mailbox behind the held message
        }

        Assert.True(recorder.Observe("concurrency.actor.alive") >= 2); // other tests' actors run beside these: at least ours

        held.Stop(ActorStopMode.Discard);
        gate.Open();
        await held.Termination.DefaultTimeout();
        held.Tell(99); // a dead letter

        // The shutdown drains and terminates every actor, so what they handled is final and in the retired total.
        await system.ShutdownAsync(ActorStopMode.Drain, TestContext.Current.CancellationToken).DefaultTimeout();

        Assert.Equal(10, held.DiscardedCount);
        Assert.True(recorder.Observe("concurrency.actor.messages.handled") >= 101); // counter's 100, held's first
        Assert.True(recorder.Total("concurrency.actor.failures") >= 1);
        Assert.True(recorder.Total("concurrency.actor.messages.discarded") >= 10);
        Assert.True(recorder.Total("concurrency.actor.dead_letters") >= 11); // the ten discarded, and the late one
    }
}
