using System.Diagnostics;
using Concurrency.Messaging.Internal;
using Concurrency.Messaging.Pipes;

namespace Concurrency.Messaging.Actors;

/// <summary>
/// <see cref="MailboxKind.BoundedBatchDrain"/>: the batch-drain queue (see <see cref="BatchDrainMailboxQueue{T}"/>) with
/// the messages waiting in it counted apart. A post reserves a place with a compare-and-swap on the count before it
/// enqueues; a take frees the places of what it took. Like the channel's, the capacity bounds what waits in the queue;
/// the batch a turn has taken no longer counts.
/// </summary>
/// <remarks>
/// A sender that waits for room registers on a <see cref="RoomSignal"/> (created by the first one), then looks again; a
/// take frees places with an Interlocked add, then looks for a waiter. Both sides write before they read, with full
/// fences, so either the take sees the waiter and wakes it, or the waiter sees the room. Closing marks the queue closed,
/// then wakes every waiter, which then finds it closed.
/// </remarks>
internal struct BoundedBatchDrainMailboxQueue<T> : IMailboxQueue<T>
{
    private BatchDrainQueue<Envelope<T>> _queue; // inline, used in place: the mailbox is one object
    private RoomSignal? _room;                   // created by the first sender to wait (CompareExchange), never replaced
    private int _capacity;                       // set by Open
    private int _size;                           // Interlocked: places reserved by posts and not yet freed by a take, 0.._capacity
    private volatile bool _closed;               // set once by Close, before it wakes the waiters

    public static MailboxKind Kind => MailboxKind.BoundedBatchDrain;

    public void Open(ActorOptions options, ITurn actor)
    {
        _capacity = options.Capacity ?? ActorOptions.DefaultChannelCapacity;
        _queue.UseScheduledConsumer(actor);
    }

    public bool TryPost(in Envelope<T> envelope, ITurn actor)
    {
        if (!TryReserve())
        {
            return false;
        }

        if (_queue.TryEnqueue(envelope))
        {
            return true;
        }

        Free(1); // closed: the place was never used
        return false;
    }

    public ValueTask<RoomWait> WaitForRoomAsync(Envelope<T> envelope, CancellationToken cancellationToken)
    {
        var room = Volatile.Read(ref _room) ?? CreateRoom();
        var roomMade = room.Enter();
        if (_closed || Volatile.Read(ref _size) < _capacity)
        {
            room.Leave();
            return new(_closed ? RoomWait.Closed : RoomWait.Room);
        }

        return WaitAsync(room, roomMade, cancellationToken);
    }

    public readonly void WakeAfterWait(ITurn actor)
    {
        // No wait posts here: a waiter posts again itself.
    }

    public void Close(ITurn actor)
    {
        _closed = true;
        _queue.Close();
        Volatile.Read(ref _room)?.WakeAll(); // waiting senders find the queue closed and give up
    }

    public TurnTake Take(ref Slot<Envelope<T>>[] batch, int most, bool idleIfEmpty, out int count, out Envelope<T> one)
    {
        var taken = _queue.Take(ref batch, most, idleIfEmpty, out count, out one);
        switch (taken)
        {
            case TurnTake.Taken:
                Free(count);
                break;
            case TurnTake.TakenOne:
                Free(1);
                break;
        }

        return taken;
    }

    public bool HasWork() => _queue.HasWork();

    public readonly bool TryClaimIdle() => false; // the queue schedules its consumer from the post

    private static async ValueTask<RoomWait> WaitAsync(RoomSignal room, Task roomMade, CancellationToken cancellationToken)
    {
        try
        {
            await roomMade.WaitAsync(cancellationToken).ConfigureAwait(false);
            return RoomWait.Room;
        }
        finally
        {
            room.Leave();
        }
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
}
