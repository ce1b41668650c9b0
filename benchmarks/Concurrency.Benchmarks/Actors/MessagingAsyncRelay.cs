using Concurrency.Messaging.Actors;

namespace Concurrency.Benchmarks.Actors;

/// <summary>Our relay with an async handler: the same moves, after a <see cref="Task.Yield"/> if <paramref name="yieldFirst"/>.</summary>
internal sealed class MessagingAsyncRelay(DeliveryCount count, RingLaps? laps, bool yieldFirst) : AsyncActor<object>
{
    private MessagingRelayMoves _moves = new(count, laps); // used in place

    protected override async ValueTask ReceiveAsync(object message)
    {
        if (yieldFirst)
        {
            await Task.Yield();
        }

        _moves.Receive(message);
    }
}
