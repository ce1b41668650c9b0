using Concurrency.Messaging.Actors;

namespace Concurrency.Benchmarks.Actors;

/// <summary>
/// Our relay: counts each token and sends it on to the actor it is linked to (a ponger, a ring member); the ring's
/// starter, given <paramref name="laps"/>, ends the token's lap instead.
/// </summary>
internal sealed class MessagingRelay(DeliveryCount count, RingLaps? laps) : Actor<object>
{
    private ActorRef<object>? _next; // set by the link at setup; this actor's only (one message at a time)

    protected override void Receive(object message)
    {
        switch (message)
        {
            case Token token:
                count.Add();
                if (laps is null)
                {
                    _next!.Tell(token);
                }
                else if (laps.Completed(token) is { } next)
                {
                    _next!.Tell(next);
                }

                break;
            case Link<ActorRef<object>> link:
                _next = link.To;
                break;
        }
    }
}
