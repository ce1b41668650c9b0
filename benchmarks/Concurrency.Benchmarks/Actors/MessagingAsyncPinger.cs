using Concurrency.Messaging.Actors;

namespace Concurrency.Benchmarks.Actors;

/// <summary>Our pinger with an async handler: the same moves, after a <see cref="Task.Yield"/> if <paramref name="yieldFirst"/>.</summary>
internal sealed class MessagingAsyncPinger(PingerTally tally, bool yieldFirst) : AsyncActor<object>
{
    private MessagingPingerMoves _moves = new(tally); // used in place

    protected override async ValueTask ReceiveAsync(object message)
    {
        if (yieldFirst)
        {
            await Task.Yield();
        }

        _moves.Receive(message);
    }
}
