using Concurrency.Messaging.Actors;

namespace Concurrency.Benchmarks.Actors;

/// <summary>Our relay: see <see cref="MessagingRelayMoves"/>.</summary>
internal sealed class MessagingRelay(DeliveryCount count, RingLaps? laps) : Actor<object>
{
    private MessagingRelayMoves _moves = new(count, laps); // used in place

    protected override void Receive(object message) => _moves.Receive(message);
}
