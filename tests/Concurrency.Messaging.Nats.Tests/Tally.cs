using System.Buffers.Binary;

namespace Concurrency.Messaging.Nats.Tests;

/// <summary>Messages checked off by number: each message is its number as 8 little-endian bytes; the tally counts each number's arrivals.</summary>
internal sealed class Tally(int messages)
{
    private readonly int[] _arrivals = new int[messages + 1];

    public static byte[] Message(long number)
    {
        var bytes = new byte[sizeof(long)];
        BinaryPrimitives.WriteInt64LittleEndian(bytes, number);
        return bytes;
    }

    /// <summary>Posts 1..<paramref name="count"/> (or from <paramref name="first"/>) and, unless told otherwise, completes the producer.</summary>
    public static async Task PostAsync(NatsPipeProducer<byte[]> producer, long first, long count, Func<long, Task>? after = null)
    {
        for (var n = first; n < first + count; n++)
        {
            await producer.PostAsync(Message(n), TestContext.Current.CancellationToken);
            if (after is not null)
            {
                await after(n);
            }
        }
    }

    public void Record(byte[] message) => Interlocked.Increment(ref _arrivals[BinaryPrimitives.ReadInt64LittleEndian(message)]);

    /// <summary>Numbers that arrived exactly once, more than once, and never.</summary>
    public (int Once, int Repeated, int Never) Summary()
    {
        int once = 0, repeated = 0, never = 0;
        for (var n = 1; n < _arrivals.Length; n++)
        {
            switch (Volatile.Read(ref _arrivals[n]))
            {
                case 0: never++; break;
                case 1: once++; break;
                default: repeated++; break;
            }
        }

        return (once, repeated, never);
    }

    public int Arrivals(int number) => Volatile.Read(ref _arrivals[number]);

    /// <summary>
    /// Core's promise, checked: nothing handled twice, and every number never handled was found missing, counted and
    /// reported (for a consumer with a subscription of its own).
    /// </summary>
    public void AssertOnlyReportedLosses(NatsPipeCounts counts, IEnumerable<NatsLoss> reported)
    {
        var (once, repeated, never) = Summary();
        Assert.Equal(0, repeated);
        Assert.Equal(_arrivals.Length - 1, counts.Handled + counts.Lost);
        Assert.Equal((long)once, counts.Handled);
        Assert.Equal(never, counts.Lost);
        Assert.Equal(counts.Lost, reported.Sum(l => l.Count));
    }

    /// <summary>Posts 1..<paramref name="count"/>, then completes the producer (its end marker).</summary>
    public static async Task PostAllAsync(NatsPipeProducer<byte[]> producer, long count)
    {
        await PostAsync(producer, 1, count).DefaultTimeout();
        await producer.CompleteAsync(TestContext.Current.CancellationToken).DefaultTimeout();
    }

    public void AssertEachOnce()
    {
        var (once, repeated, never) = Summary();
        Assert.Equal((_arrivals.Length - 1, 0, 0), (once, repeated, never));
    }
}
