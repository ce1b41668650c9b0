using Concurrency.Messaging.Internal;

namespace Concurrency.Messaging.Pipes;

/// <summary>
/// A bounded single-producer, single-consumer ring of slots. The producer owns the tail, the consumer the head; each reads
/// the other's index only when its cached copy says the ring is full (producer) or empty (consumer), so in a stream the
/// two sides touch each other's cache lines about once per batch, not once per message.
/// </summary>
/// <remarks>
/// Neither hot path has a fence: the producer writes the slot, publishes the tail with a release store and reads the
/// consumer's parked flag; the consumer reads the tail with an acquire load and releases slots with one release store per
/// batch. The price is paid by the side that parks (see <see cref="Park"/>).
/// </remarks>
internal sealed class SingleProducerRing<T>
{
    private readonly Slot<T>[] _slots; // a struct per slot: storing T into it needs no array covariance check, storing into a T[] does
    private readonly long _mask;
    private PaddedIndexes _producer; // Index = tail (producer writes, consumer reads); CachedOther = head the producer last saw
    private PaddedIndexes _consumer; // Index = head (consumer writes, producer reads); CachedOther unused

    // 1 while the consumer is parked (or about to park); the producer takes it back to 0 when it wakes it. The producer reads
    // it after every post, so it has a line of its own: on the consumer's line, every release of the head (once per batch)
    // would make the producer's next post miss, and on this VM such a miss costs 70 ns at some moments and 800 at others.
    private PaddedState _parked;

    public SingleProducerRing(int capacity)
    {
        _slots = new Slot<T>[capacity];
        _mask = capacity - 1;
    }

    public int Capacity => _slots.Length;

    public WakeSignal ConsumerWake { get; } = new();

    /// <summary>Producer only: whether one more message fits. Refreshes the cached head only when the ring looks full.</summary>
    public bool HasRoom()
    {
        var tail = _producer.Index;
        if (tail - _producer.CachedOther < _slots.Length)
        {
            return true;
        }

        _producer.CachedOther = Volatile.Read(ref _consumer.Index);
        return tail - _producer.CachedOther < _slots.Length;
    }

    /// <summary>Any thread: whether the ring has room right now, read fresh and without touching the producer's cache.</summary>
    public bool HasRoomNow() => Volatile.Read(ref _producer.Index) - Volatile.Read(ref _consumer.Index) < _slots.Length;

    /// <summary>Producer only, after <see cref="HasRoom"/>: writes the slot, then publishes it with a release store of the tail.</summary>
    public void Publish(T message)
    {
        var tail = _producer.Index;
        _slots[tail & _mask].Value = message;
        Volatile.Write(ref _producer.Index, tail + 1);
    }

    /// <summary>Producer, after publishing: whether the consumer parked (or is about to), so <see cref="WakeConsumer"/> is due.</summary>
    public bool ConsumerParked => Volatile.Read(ref _parked.Value) != 0;

    /// <summary>Wakes the consumer if it is still parked; of several racing callers, one sets the signal.</summary>
    public void WakeConsumer()
    {
        if (Interlocked.Exchange(ref _parked.Value, 0) != 0)
        {
            ConsumerWake.Set();
        }
    }

    /// <summary>Consumer only: the head, i.e. the next slot to handle.</summary>
    public long Head => _consumer.Index;

    /// <summary>Consumer only: the published tail (acquire), so every slot before it is fully written.</summary>
    public long ReadTail() => Volatile.Read(ref _producer.Index);

    /// <summary>
    /// Consumer only: the message at <paramref name="index"/>. The slot is not cleared: writing it would pull the line the
    /// producer is filling back to this core. A ring keeps at most its capacity of handled messages reachable until they are
    /// overwritten, or until <see cref="Clear"/> when the consumer exits.
    /// </summary>
    public T Take(long index) => _slots[index & _mask].Value;

    /// <summary>Consumer only, once it will read no more: drops the references the ring still holds.</summary>
    public void Clear() => Array.Clear(_slots);

    /// <summary>Consumer only: hands the slots before <paramref name="head"/> back to the producer.</summary>
    public void Release(long head) => Volatile.Write(ref _consumer.Index, head);

    /// <summary>
    /// Consumer only: parks until the producer publishes past <paramref name="head"/> or <paramref name="stop"/> says stop
    /// (whoever makes it say so must set <see cref="ConsumerWake"/>), or until <paramref name="timeout"/> passes.
    /// </summary>
    /// <returns><see langword="false"/> if the timeout passed without a wake.</returns>
    /// <remarks>
    /// The producer reads the parked flag after publishing with no fence, so a plain flag could be missed: the producer's tail
    /// store still sitting in its store buffer while it reads a stale flag, and this side reading a stale tail. The
    /// process-wide barrier between raising the flag and looking at the tail again rules that out (either the tail is seen
    /// here, or the flag is seen there), so the park needs no timeout. It costs microseconds, once per park; a consumer
    /// parks only after <see cref="IdleWait"/> ran out, so a busy stream never pays it.
    /// </remarks>
    public bool Park(long head, Func<bool> stop, TimeSpan timeout)
    {
        Volatile.Write(ref _parked.Value, 1);
        Interlocked.MemoryBarrierProcessWide();
        var woken = true;
        if (ReadTail() == head && !stop())
        {
            woken = ConsumerWake.Wait(timeout);
        }

        Volatile.Write(ref _parked.Value, 0);
        return woken;
    }
}
