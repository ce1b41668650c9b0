using Proto;

namespace Concurrency.Benchmarks.Actors;

/// <summary>
/// Proto.Actor's relay: counts each token and sends it on to the actor it is linked to (a ponger, a ring member); the
/// ring's starter, given <paramref name="laps"/>, ends the token's lap instead.
/// </summary>
internal sealed class ProtoRelay(DeliveryCount count, RingLaps? laps) : IActor
{
    private PID? _next; // set by the link at setup; this actor's only (one message at a time)

    public Task ReceiveAsync(IContext context)
    {
        switch (context.Message)
        {
            case Token token:
                count.Add();
                if (laps is null)
                {
                    context.Send(_next!, token);
                }
                else if (laps.Completed(token) is { } next)
                {
                    context.Send(_next!, next);
                }

                break;
            case Link<PID> link:
                _next = link.To;
                break;
        }

        return Task.CompletedTask;
    }
}
