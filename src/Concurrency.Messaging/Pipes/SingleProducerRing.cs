using Concurrency.Messaging.Internal;

namespace Concurrency.Messaging.Pipes;

/// <summary>
/// A bounded single-producer, single-consumer ring of slots. The producer owns the tail, the consumer the head; each reads
/// the other's index only when its cached copy says the ring is full (producer) or empty (consumer), so in a stream the
/// two sides touch each other's cache lines about once per batch, not once per message.
/// </summary>
/// <remarks>
/// Neither hot path has a fence: the producer writes the slot and publishes the tail with a release store; the consumer
/// reads the tail with an acquire load and releases slots with one release store per batch. Whether the consumer is idle
/// is its queue's business (<see cref="RingQueue{T}"/>), which pays the fence when it goes idle; the ring only holds the
/// flag (<see cref="ConsumerIdle"/>), where the producer reads it.
/// </remarks>
internal sealed class SingleProducerRing<T>
{
    private readonly Slot<T>[] _slots; // a struct per slot: storing T into it needs no array covariance check, storing into a T[] does
    private readonly long _mask;
    private PaddedIndexes _producer; // Index = tail (producer writes, consumer reads); CachedOther = head the producer last saw
    private PaddedIndexes _consumer; // Index = head (consumer writes, producer reads); CachedOther unused
    private IdleFlag _consumerIdle;  // the consumer's: its queue releases it (RingQueue), the producer claims it after a post

    public SingleProducerRing(int capacity)
    {
        _slots = new Slot<T>[capacity];
        _mask = capacity - 1;
    }

    public int Capacity => _slots.Length;

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

    /// <summary>
    /// The consumer's idle flag (see <see cref="IdleFlag"/>): the consumer's queue (<see cref="RingQueue{T}"/>) releases it,
    /// the producer claims it after each post. It sits here, in a class the producer holds, rather than in the queue, a
    /// struct inside a consumer generic over it: from the shared code of a pipe of reference types, reaching it there cost
    /// each post a lookup in the generic dictionary and a call.
    /// </summary>
    public ref IdleFlag ConsumerIdle => ref _consumerIdle;

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

    /// <summary>
    /// Consumer only: copies up to <paramref name="most"/> messages from <paramref name="index"/> on into
    /// <paramref name="target"/>, stopping at the ring's end so that one block copy does it, and returns how many. The
    /// slots are not cleared, as in <see cref="Take"/>.
    /// </summary>
    public int CopyTo(long index, Slot<T>[] target, int most)
    {
        var first = (int)(index & _mask);
        var count = Math.Min(most, _slots.Length - first);
        _slots.AsSpan(first, count).CopyTo(target); // a span's copy: no type checks, cheap for the short runs of a small ring
        return count;
    }

    /// <summary>Consumer only, once it will read no more: drops the references the ring still holds.</summary>
    public void Clear() => Array.Clear(_slots);

    /// <summary>Consumer only: hands the slots before <paramref name="head"/> back to the producer.</summary>
    public void Release(long head) => Volatile.Write(ref _consumer.Index, head);
}
