using System.Diagnostics;
using Concurrency.Messaging.Internal;
using Concurrency.Messaging.Pipes;

namespace Concurrency.Messaging.Actors;

/// <summary>
/// The batch-drain mailbox with a capacity: the same queue and turn (see <see cref="BatchDrainMailbox{T}"/>), with the
/// messages waiting in it counted apart. A post reserves a place with a compare-and-swap on the count before it enqueues;
/// a turn frees the places of what it took. Like the channel mailbox, the capacity bounds what waits in the queue; the
/// batch a turn has taken no longer counts.
/// </summary>
/// <remarks>
/// A sender that waits for room registers on a <see cref="RoomSignal"/> (created by the first one), then looks again; a
/// turn frees places with an Interlocked add, then looks for a waiter. Both sides write before they read, with full
/// fences, so either the turn sees the waiter and wakes it, or the waiter sees the room. Closing wakes every waiter, which
/// then finds the actor no longer accepting.
/// </remarks>
internal sealed class BoundedBatchDrainMailbox<T> : Mailbox<T>
{
    private readonly int _capacity;
    private BatchDrainQueue<Envelope<T>> _queue; // inline, used in place: the mailbox is one object
    private RoomSignal? _room;                   // created by the first sender to wait (CompareExchange), never replaced
    private int _size;                           // Interlocked: places reserved by posts and not yet freed by a turn, 0.._capacity

    public BoundedBatchDrainMailbox(ActorSystem system, Func<Actor<T>> factory, ActorOptions options, long id)
        : base(system, factory, options, id)
    {
        _capacity = options.Capacity ?? ActorOptions.DefaultChannelCapacity;
        _queue.UseScheduledConsumer(this);
    }

    public override MailboxKind MailboxKind => MailboxKind.BoundedBatchDrain;

    protected override bool TryPost(in Envelope<T> envelope, out bool full)
    {
        if (!TryReserve())
        {
            // The queue is closed only after the actor stopped accepting, so an accepting actor's refusal means full.
            full = IsAccepting;
            return false;
        }

        full = false;
        if (_queue.TryEnqueue(envelope))
        {
            return true;
        }

        Free(1); // closed: the place was never used
        return false;
    }

    protected override async ValueTask<bool> PostWaitingAsync(Envelope<T> envelope, CancellationToken cancellationToken)
    {
        var room = Volatile.Read(ref _room) ?? CreateRoom();
        while (true)
        {
            var roomMade = room.Enter();
            try
            {
                if (TryPost(envelope, out var full))
                {
                    return true;
                }

                if (!full)
                {
                    return false; // stopped: closing woke this wait, or came before it
                }

                await roomMade.WaitAsync(cancellationToken).ConfigureAwait(false);
            }
            finally
            {
                room.Leave();
            }
        }
    }

    internal override void CloseQueue()
    {
        _queue.Close();
        Volatile.Read(ref _room)?.WakeAll(); // waiting senders find the actor stopped and give up
    }

    public override void RunTurn()
    {
        var queue = new FreeingQueue(this);
        RunTurn(ref queue);
    }

    private bool TryReserve()
    {
        var size = Volatile.Read(ref _size);
        while (size < _capacity)
        {
            var seen = Interlocked.CompareExchange(ref _size, size + 1, size);
            if (seen == size)
            {
                return true;
            }

            size = seen;
        }

        return false;
    }

    private void Free(int places)
    {
        var size = Interlocked.Add(ref _size, -places);
        Debug.Assert(size >= 0, "More places freed than reserved.");
        if (Volatile.Read(ref _room) is { HasWaiters: true } room)
        {
            room.WakeAll();
        }
    }

    private RoomSignal CreateRoom()
    {
        var created = new RoomSignal();
        return Interlocked.CompareExchange(ref _room, created, null) ?? created;
    }

    /// <summary>The queue as the turn takes from it: what a take moves out of the queue frees its places.</summary>
    private readonly struct FreeingQueue(BoundedBatchDrainMailbox<T> mailbox) : ITurnQueue<Envelope<T>>
    {
        public TurnTake Take(ref Slot<Envelope<T>>[] batch, int most, bool idleIfEmpty, out int count, out Envelope<T> one)
        {
            var taken = mailbox._queue.Take(ref batch, most, idleIfEmpty, out count, out one);
            switch (taken)
            {
                case TurnTake.Taken:
                    mailbox.Free(count);
                    break;
                case TurnTake.TakenOne:
                    mailbox.Free(1);
                    break;
            }

            return taken;
        }

        public bool HasWork() => mailbox._queue.HasWork();

        public bool TryClaimIdle() => false; // the queue schedules its consumer from the post
    }
}
