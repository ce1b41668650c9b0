using Akka.Actor;

namespace Concurrency.Benchmarks.Actors;

/// <summary>Akka's pinger: plays <see cref="PingerTally"/>'s game with the ponger it is linked to.</summary>
internal sealed class AkkaPinger(PingerTally tally) : UntypedActor
{
    private IActorRef _ponger = ActorRefs.Nobody; // set by the link at setup; this actor's only (one message at a time)

    protected override void OnReceive(object message)
    {
        switch (message)
        {
            case Token pong:
                if (tally.Returned(pong) is { } ping)
                {
                    _ponger.Tell(ping, ActorRefs.NoSender);
                }

                break;
            case StartRun:
                for (var i = 0; i < tally.InFlight && tally.Next() is { } first; i++)
                {
                    _ponger.Tell(first, ActorRefs.NoSender);
                }

                break;
            case Link<IActorRef> link:
                _ponger = link.To;
                break;
            default:
                Unhandled(message);
                break;
        }
    }
}
