using Concurrency.Messaging.Actors;

namespace Concurrency.Benchmarks.Actors;

/// <summary>Our pinger: plays <see cref="PingerTally"/>'s game with the ponger it is linked to.</summary>
internal sealed class MessagingPinger(PingerTally tally) : Actor<object>
{
    private ActorRef<object>? _ponger; // set by the link at setup; this actor's only (one message at a time)

    protected override void Receive(object message)
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
