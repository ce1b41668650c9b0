namespace Concurrency.Messaging.Tests.Actors;

public sealed class EventActorTests
{
    private static CancellationToken Cancellation => TestContext.Current.CancellationToken;

    [Fact]
    public async Task Receive_RegisteredTypes_EachEventGoesToItsTypesHandler()
    {
        await using var system = new ActorSystem();
        using var gate = new HandlerGate();
        var actor = system.Spawn(() => new TallyActor(gate));

        await gate.HoldAsync(actor, Event("hold"));
        actor.Tell(Event("add", 5));
        actor.Tell(Event("increment"));
        actor.Tell(Event("increment"));
        actor.Tell(Event("increment"));
        actor.Tell(Event("add", 2));
        actor.Tell(Event("increment"));
        actor.Tell(Event("increment"));
        gate.Open();

        Assert.Equal(12, await actor.Ask<int>(Event("total"), Cancellation).AsTask().DefaultTimeout());
        int[] incrementRuns = [3, 2];
        Assert.Equal(incrementRuns, await actor.Ask<int[]>(Event("increment-runs"), Cancellation).AsTask().DefaultTimeout());
    }

    [Fact]
    public async Task Receive_UnknownType_ReportedAsAFailureAndTheActorGoesOn()
    {
        await using var system = new ActorSystem();
        using var failures = new FailureLog(system);
        var actor = system.Spawn(() => new TallyActor(), new ActorOptions { Name = "tally", Supervisor = _ => SupervisionDirective.Resume });

        actor.Tell(Event("add", 1));
        actor.Tell(Event("unknown"));
        await Assert.ThrowsAsync<InvalidOperationException>(() => actor.Ask<int>(Event("also-unknown"), Cancellation).AsTask().DefaultTimeout());
        actor.Tell(Event("add", 1));

        Assert.Equal(2, await actor.Ask<int>(Event("total"), Cancellation).AsTask().DefaultTimeout());
        Assert.Equal(2, failures.Count);
        Assert.All(failures, f =>
        {
            Assert.Equal("tally", f.Actor);
            Assert.IsType<InvalidOperationException>(f.Exception);
            Assert.Equal(SupervisionDirective.Resume, f.Directive);
        });
    }

    private static ActorEvent<int> Event(string type, int value = 0) => new(type, "test", value);
}
