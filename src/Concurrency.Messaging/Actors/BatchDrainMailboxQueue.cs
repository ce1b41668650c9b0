using Concurrency.Messaging.Internal;
using Concurrency.Messaging.Pipes;

namespace Concurrency.Messaging.Actors;

/// <summary>
/// <see cref="MailboxKind.BatchDrain"/>: the pipes' batch-drain queue, unbounded. A post is a compare-and-swap, a few
/// stores and a release store, and finds out under the same lock whether the actor is idle and needs a turn; a turn swaps
/// out everything waiting in one step.
/// </summary>
internal struct BatchDrainMailboxQueue<T> : IMailboxQueue<T>
{
    private BatchDrainQueue<Envelope<T>> _queue; // inline, used in place: the mailbox is one object

    public static MailboxKind Kind => MailboxKind.BatchDrain;

    public void Open(ActorOptions options, ITurn actor) => _queue.UseScheduledConsumer(actor);

    public bool TryPost(in Envelope<T> envelope, ITurn actor) => _queue.TryEnqueue(envelope); // schedules from under its lock

    public readonly ValueTask<RoomWait> WaitForRoomAsync(Envelope<T> envelope, CancellationToken cancellationToken) =>
        new(RoomWait.Closed); // never full: a refused post found it closed

    public readonly void WakeAfterWait(ITurn actor)
    {
        // No wait posts here.
    }

    public void Close(ITurn actor) => _queue.Close();

    public TurnTake Take(ref Slot<Envelope<T>>[] batch, int most, bool idleIfEmpty, out int count, out Envelope<T> one) =>
        _queue.Take(ref batch, most, idleIfEmpty, out count, out one);

    public bool HasWork() => _queue.HasWork();

    public readonly bool TryClaimIdle() => false; // the queue schedules its consumer from the post
}
