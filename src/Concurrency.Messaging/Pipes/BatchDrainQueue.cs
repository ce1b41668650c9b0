using System.Buffers;
using System.Diagnostics;
using System.Numerics;
using System.Runtime.CompilerServices;
using Concurrency.Messaging.Internal;

namespace Concurrency.Messaging.Pipes;

/// <summary>
/// An unbounded multi-producer queue drained in one step: an array behind a spin lock. Producers append under the lock (one
/// compare-and-swap in, one release store out); a consumer swaps the whole array for its empty one and handles the batch
/// outside the lock. A sole consumer is run by the <see cref="TurnRunner"/> (as pool turns, or on a thread of its own that
/// parks while idle) and scheduled by the queue itself (see <see cref="Take"/>): its "nothing here, I am going idle" and a
/// producer's "I appended, is anyone idle?" meet under the same lock, so no wake-up is lost and no fence is needed beyond
/// the lock's. Consumers that share the queue take a message at a time (<see cref="TryTakeOne"/>) and are scheduled by
/// their pipe.
/// </summary>
/// <remarks>
/// <para>
/// A struct, so that its owner holds it inline: an actor's mailbox is one object, not a mailbox, a queue and two arrays to
/// pull into the cache at every message. It must live in a field and be used in place, never copied.
/// </para>
/// <para>
/// Nothing is allocated until the first message, so a queue that never received one costs its fields (an idle actor).
/// With a scheduled consumer, a message that arrives at an empty queue waits in a field of its own rather than the array,
/// and the consumer takes it from there (<see cref="TurnTake.TakenOne"/>): a queue that holds one message at a time (a
/// token passed round a ring, a request and its reply) never touches an array at all. A second message moves it into the
/// array, so a backlog is always in the array alone and the consumer takes it by swapping, never copying.
/// </para>
/// <para>
/// Arrays come from the runtime's shared pool and go back to it when the queue grows past them, or, if grown beyond the
/// first size, when its scheduled consumer goes idle after its first grown backlog: a queue idle after a burst keeps at
/// most two arrays of the first size, its own and its consumer's, unless its consumer goes idle holding a grown array a
/// second time in a row (bursts that size keep coming): from then on it keeps its grown arrays, as a burst would only
/// rent them back. A burst through many queues in turn (tokens round a ring of ten thousand actors, which reach each one
/// together) then reuses a few arrays instead of leaving each queue holding its own grown one: tens of megabytes per
/// burst that the collector would otherwise copy while the burst runs. Arrays go back cleared, and only this queue rents
/// <see cref="Slot{T}"/> arrays, so a rented one is always empty.
/// </para>
/// </remarks>
internal struct BatchDrainQueue<T> : ITurnQueue<T>
{
    /// <summary>The size of the first array a lane with messages allocates.</summary>
    public const int InitialCapacity = 16;

    private SpinGate _gate;                        // guards the fields below: each critical section is a few stores
    private ITurn? _scheduled;                     // set once before the first post: the sole consumer, which a producer schedules when idle
    private Slot<T>[]? _items;                     // guarded by _gate: after _first, the accepted messages are _items[_head.._count)
    private T _first;                              // guarded by _gate: scheduled consumer only, the one message waiting, if _hasFirst (the array is then empty)
    private bool _hasFirst;                        // guarded by _gate
    private int _head;                             // guarded by _gate: where consumers sharing the lane take from
    private int _count;                            // written under _gate; read without it as a hint by a consumer looking before it goes idle
    private bool _refusing;                        // guarded by _gate: closed to posts
    private volatile bool _closed;                 // set under _gate with _refusing; read without it by a consumer looking before it goes idle
    private bool _idle;                            // guarded by _gate: the scheduled consumer is idle, and the next post (or the close) schedules it
    private bool _grewBefore;                      // guarded by _gate: the scheduled consumer went idle last time with a grown array

    /// <summary>
    /// Makes <paramref name="consumer"/> the lane's only consumer, run by the <see cref="TurnRunner"/> (pool turns, or a
    /// thread of its own): a producer that appends while it is idle schedules it once. Call before the first post; the
    /// consumer starts idle.
    /// </summary>
    public void UseScheduledConsumer(ITurn consumer)
    {
        _scheduled = consumer;
        _idle = true;
    }

    /// <returns><see langword="false"/> once the queue is closed.</returns>
    [MethodImpl(MethodImplOptions.AggressiveInlining)] // into the pipe's post: with its lock it is the whole post
    public bool TryEnqueue(T message)
    {
        bool wake;
        _gate.Enter();
        try
        {
            if (_refusing)
            {
                return false;
            }

            if (_scheduled is not null && !_hasFirst && _count == _head)
            {
                _first = message;
                _hasFirst = true;
            }
            else
            {
                if (_hasFirst)
                {
                    // A backlog starts: the lone message goes first in the array, so the consumer can take the whole
                    // backlog by swapping arrays rather than copying it into a second one.
                    Debug.Assert(_count == _head, "A message waits apart only while the array is empty.");
                    Append(_first);
                    _first = default!;
                    Volatile.Write(ref _hasFirst, false); // after the count: see HasWork
                }

                Append(message);
            }

            wake = TakeIdle();
        }
        finally
        {
            _gate.Exit();
        }

        if (wake)
        {
            _scheduled!.Schedule(); // outside the lock: the consumer's turn may start at once on another thread
        }

        return true;
    }

    /// <summary>Refuses further messages and schedules the sole consumer if it is idle, so that it finds the end.</summary>
    public void Close()
    {
        bool wake;
        _gate.Enter();
        try
        {
            _refusing = true;
            _closed = true;
            wake = TakeIdle();
        }
        finally
        {
            _gate.Exit();
        }

        if (wake)
        {
            _scheduled!.Schedule();
        }
    }

    /// <summary>
    /// For the scheduled consumer: takes what is waiting without waiting for more: the message in its own field if it is
    /// alone, else everything (that message first, then the array), whatever <paramref name="most"/>. If there is nothing
    /// and <paramref name="idleIfEmpty"/>, the consumer is marked idle under the lock, so the next post schedules it again;
    /// the caller must then end its turn.
    /// </summary>
    /// <returns><see cref="TurnTake.TakenOne"/> with the message in <paramref name="one"/>; <see cref="TurnTake.Taken"/>
    /// with <paramref name="count"/> messages now in <paramref name="batch"/>; <see cref="TurnTake.Idle"/> (or
    /// <see cref="TurnTake.Empty"/>) when empty and open; <see cref="TurnTake.Completed"/> when closed and empty.</returns>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public TurnTake Take(ref Slot<T>[] batch, int most, bool idleIfEmpty, out int count, out T one)
    {
        Debug.Assert(_scheduled is not null, "Only a scheduled consumer takes this way.");
        Slot<T>[]? spareItems = null, spareBatch = null;
        TurnTake take;
        _gate.Enter();
        try
        {
            count = 0;
            if (_hasFirst)
            {
                Debug.Assert(_count == _head, "A message waits apart only while the array is empty.");
                one = _first;
                _first = default!;
                _hasFirst = false;
                return TurnTake.TakenOne;
            }

            one = default!;
            if (_count > _head)
            {
                count = TakeLocked(ref batch);
                return TurnTake.Taken;
            }

            if (_refusing)
            {
                return TurnTake.Completed;
            }

            if (!idleIfEmpty)
            {
                return TurnTake.Empty;
            }

            // Going idle after a backlog that grew an array for the first time, the consumer and the lane set apart any
            // grown array (both are empty: the consumer has cleared its batch) for the pool, after the lock. One that
            // grew again after the last idle too gets bursts that size over and over (ping-pong with a hundred in
            // flight): it keeps its grown arrays, as a burst would only rent them back, and since it then goes idle
            // holding them, it keeps them from then on. Then the consumer hands the lane its batch if that is the larger
            // array left, so the next backlog fills it rather than allocating one.
            var grew = batch.Length > InitialCapacity || _items?.Length > InitialCapacity;
            if (!_grewBefore)
            {
                if (batch.Length > InitialCapacity)
                {
                    (spareBatch, batch) = (batch, []);
                }

                if (_items?.Length > InitialCapacity)
                {
                    (spareItems, _items) = (_items, null);
                }
            }

            _grewBefore = grew;

            if (batch.Length > (_items?.Length ?? 0))
            {
                (_items, batch) = (batch, _items ?? []);
            }

            Debug.Assert(!_idle, "The scheduled consumer is marked idle only by its running turn.");
            _idle = true;
            take = TurnTake.Idle;
        }
        finally
        {
            _gate.Exit();
        }

        // The next turn may have started on another thread: only the arrays set apart under the lock are touched here.
        // Checked here, not only in ReturnToPool: an actor goes idle after every message of a ping-pong, and a call there
        // made a fresh process compile ReturnToPool the moment the optimised Take replaced the first one, which put off
        // the runtime's promotion of every other hot method by its call-counting delay (0.1 s).
        if (spareItems is not null || spareBatch is not null)
        {
            ReturnToPool(spareItems, 0);
            ReturnToPool(spareBatch, 0);
        }

        return take;
    }

    /// <summary>The queue schedules its consumer from the post, under the lock: no producer claims it from outside.</summary>
    public readonly bool TryClaimIdle() => false;

    /// <summary>
    /// Whether a message is waiting or the queue is closed, read without the lock: for a consumer looking before it goes
    /// idle, and for the second look of a pooled consumer that shares the lane, after the full fence of going idle (a post
    /// counts its message with a release store before its producer fences and reads that consumer's flag).
    /// </summary>
    /// <remarks>
    /// The lone message's flag is read before the count: a post that starts a backlog counts the message into the array
    /// before it clears the flag (a release write, so the count is visible first on every architecture), so this read order
    /// never sees the message in neither place. A count never stays above zero once the lane is empty: the take that empties
    /// it sets it back to zero.
    /// </remarks>
    public bool HasWork() => Volatile.Read(ref _hasFirst) || Volatile.Read(ref _count) != 0 || _closed;

    /// <summary>
    /// For consumers that share the lane as pooled turns, and are scheduled by the pipe, not by the lane: takes the oldest
    /// message without waiting.
    /// </summary>
    public TurnTake TryTakeOne(out T message)
    {
        _gate.Enter();
        try
        {
            if (_count > _head)
            {
                message = _items![_head].Value;
                _items[_head] = default;
                if (++_head == _count)
                {
                    _head = 0;
                    _count = 0;
                }

                return TurnTake.TakenOne;
            }

            message = default!;
            return _refusing ? TurnTake.Completed : TurnTake.Empty;
        }
        finally
        {
            _gate.Exit();
        }
    }

    /// <summary>Under the gate: whether the sole consumer was idle, which it no longer is: the caller schedules it after leaving the gate.</summary>
    private bool TakeIdle()
    {
        if (!_idle)
        {
            return false;
        }

        _idle = false;
        return true;
    }

    /// <summary>Under the gate, with messages available, for the sole consumer: swaps the whole backlog for its empty batch.</summary>
    private int TakeLocked(ref Slot<T>[] batch)
    {
        Debug.Assert(_head == 0, "Only consumers sharing the queue move its head, and they take one at a time.");
        var count = _count;
        (_items, batch) = (batch, _items!);
        _count = 0;
        return count;
    }

    /// <summary>Under the gate: adds <paramref name="message"/> at the end of the array, growing it when full.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void Append(T message)
    {
        if (_items is null || _count == _items.Length)
        {
            Grow();
        }

        _items![_count].Value = message;
        Volatile.Write(ref _count, _count + 1);
    }

    /// <summary>Under the gate: moves the array's messages to one twice its size (or the first size), rented from the pool.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private void Grow()
    {
        var old = _items;
        var grown = ArrayPool<Slot<T>>.Shared.Rent(Math.Max(InitialCapacity, (old?.Length ?? 0) * 2));
        if (old is not null)
        {
            Array.Copy(old, grown, _count);
            ReturnToPool(old, _count);
        }

        _items = grown;
    }

    /// <summary>
    /// Gives an array the queue no longer holds back to the shared pool, cleared where it may hold references (its first
    /// <paramref name="used"/> slots; the rest are clear already). An empty array, or one not of a pool size, is left to
    /// the collector.
    /// </summary>
    private static void ReturnToPool(Slot<T>[]? array, int used)
    {
        if (array is null || array.Length < InitialCapacity || !BitOperations.IsPow2(array.Length))
        {
            return;
        }

        if (RuntimeHelpers.IsReferenceOrContainsReferences<Slot<T>>() && used > 0)
        {
            Array.Clear(array, 0, used);
        }

        ArrayPool<Slot<T>>.Shared.Return(array);
    }
}
