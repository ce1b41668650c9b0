namespace Concurrency.Messaging.Tests.Linearizability;

/// <summary>
/// A <see cref="SingleProducerRing{T}"/> driven through its own protocol by CsCheck's parallel threads. The ring promises
/// one producer and one consumer, so producer operations are serialized by one lock and consumer operations by another
/// (a lock hand-off is a legal change of thread for either side); a producer operation and a consumer operation run truly
/// concurrently, which is the race the ring's indices and cached copies must get right.
/// </summary>
internal sealed class RingUnderTest(int capacity) : ILinearizable<RingQueueModel>
{
    private readonly SingleProducerRing<int> _ring = new(capacity);
    private readonly Lock _producer = new();
    private readonly Lock _consumer = new();
    private readonly List<string> _published = []; // guarded by _producer
    private readonly List<string> _taken = [];     // guarded by _consumer
    private List<int>? _remaining;                 // guarded by _consumer: what is left once the operations are done

    /// <summary>Producer: publish if there is room (HasRoom, then Publish), as the ring pipe posts.</summary>
    public void TryPublish(int value)
    {
        lock (_producer)
        {
            var room = _ring.HasRoom();
            if (room)
            {
                _ring.Publish(value);
            }

            _published.Add(RingResult.Publish(value, room));
        }
    }

    /// <summary>Consumer: take the head if the published tail is past it, and release its slot.</summary>
    public void TryTake()
    {
        lock (_consumer)
        {
            _taken.Add(RingResult.Take(TakeOne()));
        }
    }

    /// <summary>Whether the model explains it: the same publish answers in producer order, the same takes in consumer order, the same leftovers.</summary>
    public bool Matches(RingQueueModel model)
    {
        List<int> remaining;
        lock (_consumer)
        {
            remaining = _remaining ??= Drain();
        }

        lock (_producer)
        {
            if (!_published.SequenceEqual(model.Published, StringComparer.Ordinal))
            {
                return false;
            }
        }

        lock (_consumer)
        {
            return _taken.SequenceEqual(model.Taken, StringComparer.Ordinal) && remaining.SequenceEqual(model.Queue);
        }
    }

    public override string ToString()
    {
        lock (_producer)
        {
            lock (_consumer)
            {
                return $"published [{string.Join(" ", _published)}] taken [{string.Join(" ", _taken)}] remaining [{string.Join(",", _remaining ?? [])}]";
            }
        }
    }

    private int? TakeOne()
    {
        var head = _ring.Head;
        if (_ring.ReadTail() == head)
        {
            return null;
        }

        var value = _ring.Take(head);
        _ring.Release(head + 1);
        return value;
    }

    private List<int> Drain()
    {
        var remaining = new List<int>();
        var head = _ring.Head;
        var tail = _ring.ReadTail();
        for (var i = head; i < tail; i++)
        {
            remaining.Add(_ring.Take(i));
        }

        _ring.Release(tail);
        return remaining;
    }
}

/// <summary>The sequential model of the ring: a FIFO of fixed capacity.</summary>
internal sealed class RingQueueModel(int capacity)
{
    public Queue<int> Queue { get; } = new();

    public List<string> Published { get; } = [];

    public List<string> Taken { get; } = [];

    public void TryPublish(int value)
    {
        var room = Queue.Count < capacity;
        if (room)
        {
            Queue.Enqueue(value);
        }

        Published.Add(RingResult.Publish(value, room));
    }

    public void Take() => Taken.Add(RingResult.Take(Queue.TryDequeue(out var value) ? value : null));

    public override string ToString()
        => $"published [{string.Join(" ", Published)}] taken [{string.Join(" ", Taken)}] remaining [{string.Join(",", Queue)}]";
}

/// <summary>How a ring operation and its answer are written, identically by the ring and the model.</summary>
internal static class RingResult
{
    public static string Publish(int value, bool room) => $"{value}:{(room ? "T" : "F")}";

    public static string Take(int? value) => value?.ToString(System.Globalization.CultureInfo.InvariantCulture) ?? "empty";
}
