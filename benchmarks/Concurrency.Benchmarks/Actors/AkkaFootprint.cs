using Akka.Actor;
using Akka.Configuration;

namespace Concurrency.Benchmarks.Actors;

/// <summary>Akka.NET for the footprint command: default dispatcher and mailbox, logging off, one Props for all actors.</summary>
internal sealed class AkkaFootprint : IFootprintContender
{
    private readonly ActorSystem _system = ActorSystem.Create(
        "footprint",
        ConfigurationFactory.ParseString("akka { loglevel = OFF\nstdout-loglevel = OFF\nlog-dead-letters = off\nlog-dead-letters-during-shutdown = off }"));

    private IActorRef[] _actors = [];

    public void Spawn(int count, Action received)
    {
        var props = Props.Create(() => new Counting(received));
        _actors = new IActorRef[count];
        for (var i = 0; i < count; i++)
        {
            _actors[i] = _system.ActorOf(props);
        }
    }

    public void TellEach()
    {
        foreach (var actor in _actors)
        {
            actor.Tell(1, ActorRefs.NoSender);
        }
    }

    public void Dispose() => _system.Terminate().Wait(TimeSpan.FromSeconds(10));

    private sealed class Counting(Action received) : UntypedActor
    {
        protected override void OnReceive(object message) => received();
    }
}
