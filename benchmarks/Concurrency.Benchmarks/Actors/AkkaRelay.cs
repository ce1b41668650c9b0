using Akka.Actor;

namespace Concurrency.Benchmarks.Actors;

/// <summary>
/// Akka's relay: counts each token and sends it on to the actor it is linked to (a ponger, a ring member); the ring's
/// starter, given <paramref name="laps"/>, ends the token's lap instead.
/// </summary>
internal sealed class AkkaRelay(DeliveryCount count, RingLaps? laps) : UntypedActor
{
    private IActorRef _next = ActorRefs.Nobody; // set by the link at setup; this actor's only (one message at a time)

    protected override void OnReceive(object message)
    {
        switch (message)
        {
            case Token token:
                count.Add();
                if (laps is null)
                {
                    _next.Tell(token, ActorRefs.NoSender);
                }
                else if (laps.Completed(token) is { } next)
                {
                    _next.Tell(next, ActorRefs.NoSender);
                }

                break;
            case Link<IActorRef> link:
                _next = link.To;
                break;
            default:
                Unhandled(message);
                break;
        }
    }
}
