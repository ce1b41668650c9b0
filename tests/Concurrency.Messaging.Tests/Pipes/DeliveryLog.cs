namespace Concurrency.Messaging.Tests.Pipes;

/// <summary>
/// What one consumer handled: a bitmap of message ids (each must be seen exactly once, so a loss balanced by a duplicate
/// still shows), a checksum, and per-producer order. Messages encode their producer and sequence as (producer &lt;&lt; 32) | sequence.
/// Written only by the consumer's handler (one thread at a time per log, unless shared by work-sharing consumers, which is
/// why the counters are Interlocked).
/// </summary>
internal sealed class DeliveryLog
{
    private readonly int[] _seen;
    private readonly long[] _lastSequence;
    private readonly int _perProducer;
    private long _count;
    private long _checksum;
    private long _outOfOrder;

    public DeliveryLog(int producers, int perProducer)
    {
        _perProducer = perProducer;
        _seen = new int[producers * perProducer];
        _lastSequence = new long[producers];
        Array.Fill(_lastSequence, -1);
    }

    public long Count => Interlocked.Read(ref _count);

    public long Checksum => Interlocked.Read(ref _checksum);

    public long OutOfOrder => Interlocked.Read(ref _outOfOrder);

    public static long Message(int producer, int sequence) => ((long)producer << 32) | (uint)sequence;

    public static long ExpectedChecksum(int producers, int perProducer)
    {
        long sum = 0;
        for (var p = 0; p < producers; p++)
        {
            for (var s = 0; s < perProducer; s++)
            {
                sum += Message(p, s);
            }
        }

        return sum;
    }

    /// <summary>Records a message; per-producer order is checked only when a single thread writes this log.</summary>
    public void Record(long message)
    {
        var producer = (int)(message >> 32);
        var sequence = (int)(message & 0xFFFF_FFFF);
        Interlocked.Increment(ref _seen[(producer * _perProducer) + sequence]);
        Interlocked.Increment(ref _count);
        Interlocked.Add(ref _checksum, message);
        if (sequence <= _lastSequence[producer])
        {
            Interlocked.Increment(ref _outOfOrder);
        }

        _lastSequence[producer] = sequence;
    }

    /// <summary>Adds how often this consumer saw each id to <paramref name="seen"/> (indexed producer * perProducer + sequence).</summary>
    public void AddSeenTo(int[] seen)
    {
        for (var i = 0; i < _seen.Length; i++)
        {
            seen[i] += Volatile.Read(ref _seen[i]);
        }
    }

    /// <summary>Ids seen a number of times other than <paramref name="expected"/>, for a readable failure.</summary>
    public IReadOnlyList<string> Anomalies(int expected = 1)
    {
        var anomalies = new List<string>();
        for (var i = 0; i < _seen.Length && anomalies.Count < 10; i++)
        {
            if (_seen[i] != expected)
            {
                anomalies.Add($"producer {i / _perProducer} message {i % _perProducer} seen {_seen[i]} times");
            }
        }

        return anomalies;
    }

    /// <summary>Asserts that every id was handled exactly once, with the right count and checksum.</summary>
    public void AssertExactlyOnce(int producers, int perProducer)
    {
        Assert.Empty(Anomalies());
        Assert.Equal((long)producers * perProducer, Count);
        Assert.Equal(ExpectedChecksum(producers, perProducer), Checksum);
    }

    /// <summary>Asserts <see cref="AssertExactlyOnce"/> and that each producer's messages were handled in the order it posted them.</summary>
    public void AssertExactlyOnceInOrder(int producers, int perProducer)
    {
        AssertExactlyOnce(producers, perProducer);
        Assert.Equal(0, OutOfOrder);
    }

    /// <summary>Merges the bitmaps of work-sharing consumers: together they must have seen every id exactly once.</summary>
    public static void AssertExactlyOnceAcross(IReadOnlyList<DeliveryLog> logs, int producers, int perProducer)
    {
        var total = logs.Sum(l => l.Count);
        var checksum = logs.Sum(l => l.Checksum);
        for (var i = 0; i < producers * perProducer; i++)
        {
            var seen = logs.Sum(l => l._seen[i]);
            Assert.True(seen == 1, $"producer {i / perProducer} message {i % perProducer} seen {seen} times across consumers");
        }

        Assert.Equal((long)producers * perProducer, total);
        Assert.Equal(ExpectedChecksum(producers, perProducer), checksum);
    }
}
