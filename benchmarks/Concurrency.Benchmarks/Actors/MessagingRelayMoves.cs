using Concurrency.Messaging.Actors;

namespace Concurrency.Benchmarks.Actors;

/// <summary>
/// Our relay's moves, written once for the synchronous and the async relay: count each token and send it on to the actor
/// it is linked to (a ponger, a ring member); the ring's starter, given <paramref name="laps"/>, ends the token's lap
/// instead.
/// </summary>
/// <remarks>A struct held in its actor's field and used in place: the actor's only (one message at a time).</remarks>
internal struct MessagingRelayMoves(DeliveryCount count, RingLaps? laps)
{
    private ActorRef<object>? _next; // set by the link at setup

    public void Receive(object message)
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
