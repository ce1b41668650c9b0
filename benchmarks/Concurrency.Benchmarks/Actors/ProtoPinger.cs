using Proto;

namespace Concurrency.Benchmarks.Actors;

/// <summary>Proto.Actor's pinger: plays <see cref="PingerTally"/>'s game with the ponger it is linked to.</summary>
internal sealed class ProtoPinger(PingerTally tally) : IActor
{
    private PID? _ponger; // set by the link at setup; this actor's only (one message at a time)

    public Task ReceiveAsync(IContext context)
    {
        switch (context.Message)
        {
            case Token pong:
                if (tally.Returned(pong) is { } ping)
                {
                    context.Send(_ponger!, ping);
                }

                break;
            case StartRun:
                for (var i = 0; i < tally.InFlight && tally.Next() is { } first; i++)
                {
                    context.Send(_ponger!, first);
                }

                break;
            case Link<PID> link:
                _ponger = link.To;
                break;
        }

        return Task.CompletedTask;
    }
}
