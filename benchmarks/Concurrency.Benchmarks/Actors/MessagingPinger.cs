using Concurrency.Messaging.Actors;

namespace Concurrency.Benchmarks.Actors;

/// <summary>Our pinger: plays <see cref="PingerTally"/>'s game with the ponger it is linked to.</summary>
internal sealed class MessagingPinger(PingerTally tally) : Actor<object>
{
    private MessagingPingerMoves _moves = new(tally); // used in place

    protected override void Receive(object message) => _moves.Receive(message);
}
