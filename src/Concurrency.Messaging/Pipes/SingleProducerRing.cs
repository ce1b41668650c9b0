namespace Concurrency.Messaging.Pipes;

/// <summary>
/// A bounded single-producer, single-consumer ring of slots. The producer owns the tail, the consumer the head; each
/// reads the other's index only when its cached copy says the ring is full (producer) or empty (consumer).
/// </summary>
internal sealed class SingleProducerRing<T>
{
    private readonly T[] _slots;
    private readonly long _mask;
    private PaddedCounters _producer; // Index = tail (producer writes, consumer reads); CachedOther = head the producer last saw
    private PaddedCounters _consumer; // Index = head (consumer writes, producer reads); Flag = 1 while the consumer parks

    public SingleProducerRing(int capacity)
    {
        _slots = new T[capacity];
        _mask = capacity - 1;
    }

    public WakeSignal ConsumerWake { get; } = new();

    /// <summary>Producer only: whether one more message fits.</summary>
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

    /// <summary>Producer only, after <see cref="HasRoom"/>: writes the slot, then publishes it with a release store of the tail.</summary>
    public void Publish(T message)
    {
        var tail = _producer.Index;
        _slots[tail & _mask] = message;
        Volatile.Write(ref _producer.Index, tail + 1);
    }

    /// <summary>Producer only, after publishing: wakes the consumer if it parked (or is about to; see <see cref="ParkIfEmpty"/>).</summary>
    public void WakeConsumerIfParked()
    {
        if (Volatile.Read(ref _consumer.Flag) != 0)
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
    /// producer is filling back to this core on every message. A ring keeps at most its capacity of handled messages
    /// reachable until they are overwritten, or until <see cref="Clear"/> when the consumer exits.
    /// </summary>
    public T Take(long index) => _slots[index & _mask];

    /// <summary>Consumer only, once it will read no more: drops the references the ring still holds.</summary>
    public void Clear() => Array.Clear(_slots);

    /// <summary>Consumer only: hands slots before <paramref name="head"/> back to the producer.</summary>
    public void Release(long head) => Volatile.Write(ref _consumer.Index, head);

    /// <summary>
    /// Consumer only: parks until the producer publishes past <paramref name="head"/>, <paramref name="closed"/> says stop, or
    /// <paramref name="timeout"/> passes. The producer checks the parked flag after publishing without a fence (a fence per
    /// message would cost more than the rare park saves), so in a window of a few nanoseconds it can miss the flag; the
    /// bounded park turns such a lost wake-up into a short delay, never a stranded message.
    /// </summary>
    public void ParkIfEmpty(long head, Func<bool> closed, TimeSpan timeout)
    {
        Volatile.Write(ref _consumer.Flag, 1);
        Interlocked.MemoryBarrier();
        if (ReadTail() == head && !closed())
        {
            ConsumerWake.Wait(timeout, CancellationToken.None);
        }

        Volatile.Write(ref _consumer.Flag, 0);
    }
}
