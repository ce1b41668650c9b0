using Concurrency.Messaging.Actors;

namespace Concurrency.Benchmarks.Actors;

/// <summary>Our pinger's moves in <see cref="PingerTally"/>'s game, written once for the synchronous and the async pinger.</summary>
/// <remarks>A struct held in its actor's field and used in place: the actor's only (one message at a time).</remarks>
internal struct MessagingPingerMoves(PingerTally tally)
{
    private ActorRef<object>? _ponger; // set by the link at setup

    public void Receive(object message)
    {
        switch (message)
        {
            case Token pong:
                if (tally.Returned(pong) is { } ping)
                {
                    _ponger!.Tell(ping);
                }

                break;
            case StartRun:
                for (var i = 0; i < tally.InFlight && tally.Next() is { } first; i++)
                {
                    _ponger!.Tell(first);
                }

                break;
            case Link<ActorRef<object>> link:
                _ponger = link.To;
                break;
        }
    }
}
