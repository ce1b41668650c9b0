using System.Buffers;
using System.Diagnostics;
using System.Numerics;
using System.Runtime.CompilerServices;
using Concurrency.Messaging.Internal;

namespace Concurrency.Messaging.Pipes;

/// <summary>
/// An unbounded multi-producer queue drained in one step: an array behind a spin lock. Producers append under the lock (one
/// compare-and-swap in, one release store out); a consumer swaps the whole array for its empty one and handles the batch
/// outside the lock. The consumer runs either on a dedicated thread, which pauses, yields, then parks on a semaphore (see
/// <see cref="TakeBatch"/>), or as turns scheduled on a shared pool by the <see cref="TurnRunner"/> (see <see cref="Take"/>), which cost nothing
/// while idle. Either way the consumer's "nothing here, I am going idle" and a producer's "I appended, is anyone idle?"
/// meet under the same lock, so no wake-up is lost and no fence is needed beyond the lock's.
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
// The semaphore is not disposed on purpose: a post after completion must return false, not throw
// ObjectDisposedException; it holds no kernel handle unless one is asked for.
internal struct BatchDrainQueue<T> : ITurnQueue<T>
{
    /// <summary>The size of the first array a lane with messages allocates.</summary>
    public const int InitialCapacity = 16;

    /// <summary>The consumer's pause between looks (see <see cref="IdleWait"/>): long, so a batch builds up in between.</summary>
    private const int Pause = 200;

    private SpinGate _gate;                        // guards the fields below: each critical section is a few stores
    private SemaphoreSlim? _wake;                  // dedicated consumers park here; created by the first one to park (CompareExchange)
    private ITurn? _scheduled;                      // set once before the first post: the idle consumer a producer schedules instead
    private Slot<T>[]? _items;                     // guarded by _gate: after _first, the accepted messages are _items[_head.._count)
    private T _first;                              // guarded by _gate: scheduled consumer only, the one message waiting, if _hasFirst (the array is then empty)
    private bool _hasFirst;                        // guarded by _gate
    private int _head;                             // guarded by _gate: where consumers sharing the lane take from
    private int _count;                            // written under _gate; read without it as a hint by an idle consumer
    private bool _refusing;                        // guarded by _gate: closed to posts
    private volatile bool _closed;                 // set under _gate with _refusing: lets an idle consumer stop pausing
    private int _parked;                           // guarded by _gate: consumers parked (or about to), or 1 if the scheduled consumer is idle
    private bool _grewBefore;                      // guarded by _gate: the scheduled consumer went idle last time with a grown array

    /// <summary>
    /// Makes <paramref name="consumer"/> the lane's only consumer, run as scheduled turns: a producer that appends while it is
    /// idle schedules it once. Call before the first post; the consumer starts idle.
    /// </summary>
    public void UseScheduledConsumer(ITurn consumer)
    {
        _scheduled = consumer;
        _parked = 1;
    }

    /// <returns><see langword="false"/> once the queue is closed.</returns>
    [MethodImpl(MethodImplOptions.AggressiveInlining)] // into the pipe's post: with its lock it is the whole post
    public bool TryEnqueue(T message)
    {
        int wake;
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

            wake = _parked == 0 ? 0 : TakeParked(1);
        }
        finally
        {
            _gate.Exit();
        }

        if (wake != 0)
        {
            Wake(wake);
        }

        return true;
    }

    /// <summary>Refuses further messages and wakes every parked or idle consumer.</summary>
    public void Close()
    {
        int wake;
        _gate.Enter();
        try
        {
            _refusing = true;
            _closed = true;
            wake = TakeParked(int.MaxValue);
        }
        finally
        {
            _gate.Exit();
        }

        Wake(wake);
    }

    /// <summary>
    /// Waits until there is work or the lane is closed and empty: first pausing and yielding without the lock, watching
    /// the count, then parked on the semaphore (a producer that appends under the lock sees the park). A sole consumer
    /// swaps arrays with its empty batch; consumers sharing the lane each copy out a fair share, so one of them does
    /// not hoard the backlog.
    /// </summary>
    /// <returns><see langword="false"/> when the lane is closed and empty: the consumer exits.</returns>
    public bool TakeBatch(ref Slot<T>[] batch, int sharers, bool spin, out int count)
    {
        var wait = new IdleWait(spin);
        while (true)
        {
            if (Volatile.Read(ref _count) == 0 && !_closed && wait.Wait(Pause))
            {
                continue;
            }

            var parkOn = _wake ?? CreateWake();
            var wake = 0;
            var closedAndEmpty = false;
            count = 0;
            _gate.Enter();
            try
            {
                if (_count > _head)
                {
                    count = TakeLocked(ref batch, sharers, out wake);
                }
                else if (_refusing)
                {
                    closedAndEmpty = true;
                }
                else
                {
                    _parked++;
                }
            }
            finally
            {
                _gate.Exit();
            }

            if (count > 0)
            {
                Wake(wake);
                return true;
            }

            if (closedAndEmpty)
            {
                return false;
            }

            parkOn.Wait();
            wait.Reset();
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
                count = TakeLocked(ref batch, 1, out _);
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

            Debug.Assert(_parked == 0, "The scheduled consumer is marked idle only by its running turn.");
            _parked = 1;
            take = TurnTake.Idle;
        }
        finally
        {
            _gate.Exit();
        }

        // The next turn may have started on another thread: only the arrays set apart under the lock are touched here.
        ReturnToPool(spareItems, 0);
        ReturnToPool(spareBatch, 0);
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

    private SemaphoreSlim CreateWake()
    {
        var created = new SemaphoreSlim(0);
        return Interlocked.CompareExchange(ref _wake, created, null) ?? created;
    }

    /// <summary>Under the gate: counts off up to <paramref name="most"/> parked consumers, for the caller to wake after leaving the gate.</summary>
    private int TakeParked(int most)
    {
        var wake = Math.Min(_parked, most);
        _parked -= wake;
        return wake;
    }

    /// <summary>Outside the gate: the semaphore takes its own lock, and a scheduled turn may start at once on another thread.</summary>
    private void Wake(int consumers)
    {
        if (consumers == 0)
        {
            return;
        }

        if (_scheduled is { } scheduled)
        {
            scheduled.Schedule();
        }
        else
        {
            // A consumer counted in _parked created the semaphore before it entered the gate to count itself.
            _wake!.Release(consumers);
        }
    }

    /// <summary>Under the gate, with messages available.</summary>
    private int TakeLocked(ref Slot<T>[] batch, int sharers, out int wake)
    {
        wake = 0;
        if (sharers == 1)
        {
            var count = _count - _head;
            if (_head == 0)
            {
                (_items, batch) = (batch, _items!);
            }
            else
            {
                // Only a shared lane moves _head; a lane that changes from shared to sole does not exist, but stay exact.
                EnsureCapacity(ref batch, count);
                Array.Copy(_items!, _head, batch, 0, count);
                Array.Clear(_items!, _head, count);
            }

            _head = 0;
            _count = 0;
            return count;
        }

        var available = _count - _head;
        var share = (available + sharers - 1) / sharers;
        EnsureCapacity(ref batch, share);
        Array.Copy(_items!, _head, batch, 0, share);
        Array.Clear(_items!, _head, share);
        _head += share;
        if (_head == _count)
        {
            _head = 0;
            _count = 0;
        }
        else
        {
            // Leave the rest for the others; one of them may be parked.
            wake = TakeParked(1);
        }

        return share;
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

    private static void EnsureCapacity(ref Slot<T>[] batch, int count)
    {
        if (batch.Length < count)
        {
            batch = new Slot<T>[Math.Max(count, batch.Length * 2)];
        }
    }
}
