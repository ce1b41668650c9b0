using Akka.Actor;
using Akka.Configuration;

namespace Concurrency.Benchmarks.Actors;

/// <summary>
/// Akka.NET as a peer: one actor system, every actor on the default dispatcher (the .NET thread pool) with the default
/// unbounded mailbox, and logging, dead-letter logging included, off. Sends carry no sender (<see cref="ActorRefs.NoSender"/>),
/// as Proto.Actor's do.
/// </summary>
internal sealed class AkkaContender : ActorContender<IActorRef>
{
    /// <summary>Akka's own default: messages an actor handles before it gives its thread back.</summary>
    public const int DefaultThroughput = 30;

    private static readonly TimeSpan ShutdownLimit = TimeSpan.FromSeconds(10);

    private readonly ActorSystem _system; // created in the constructor, terminated in ShutDown: the benchmark thread's

    public AkkaContender(int throughput = DefaultThroughput)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(throughput, 1);
        var config = ConfigurationFactory.ParseString($$"""
            akka {
              loglevel = OFF
              stdout-loglevel = OFF
              log-config-on-start = off
              log-dead-letters = off
              log-dead-letters-during-shutdown = off
              actor.default-dispatcher.throughput = {{throughput}}
            }
            """);
        _system = ActorSystem.Create("peers", config);
    }

    protected override IActorRef SpawnPinger(PingerTally tally) => _system.ActorOf(Props.Create(() => new AkkaPinger(tally)));

    protected override IActorRef SpawnRelay(DeliveryCount count, RingLaps? laps) => _system.ActorOf(Props.Create(() => new AkkaRelay(count, laps)));

    protected override void Send(IActorRef to, object message) => to.Tell(message, ActorRefs.NoSender);

    /// <summary>Bounded: a system that will not stop in time is left to the process's exit rather than hang the run.</summary>
    protected override void ShutDown() => _system.Terminate().Wait(ShutdownLimit);
}
