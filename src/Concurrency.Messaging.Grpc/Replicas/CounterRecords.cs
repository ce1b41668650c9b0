using System.Buffers.Binary;
using System.Diagnostics;

namespace Concurrency.Messaging.Grpc;

/// <summary>
/// Timestamped records of a replica's counter, for measuring staleness across replicas on one machine: every raise by a
/// synchronization, and the first identity handed out in each interval of <see cref="SampleTicks"/> (100 µs). Timestamps
/// are <see cref="Stopwatch.GetTimestamp"/>, the machine's monotonic clock, which every process on the machine shares.
/// Bounded: past <see cref="Capacity"/> records it stops and counts what it dropped.
/// </summary>
/// <remarks>Concurrency: called under the counter's lock only; <see cref="WriteTo"/> on a <see cref="Copy"/> taken under it.</remarks>
internal sealed class CounterRecords
{
    /// <summary>The most records kept: 2^21 (32 MiB).</summary>
    public const int Capacity = 1 << 21;

    /// <summary>The sampling interval of hand-outs, in timestamp ticks.</summary>
    public static readonly long SampleTicks = Stopwatch.Frequency / 10_000;

    private readonly List<(long Timestamp, long Counter, bool HandedOut)> _records = new(1024);
    private long _lastSample = long.MinValue / 2; // far enough back that the first hand-out is sampled, near enough not to overflow

    /// <summary>Gets how many records did not fit.</summary>
    public long Dropped { get; private set; }

    /// <summary>Records an identity handed out, if none was in this interval.</summary>
    public void Sample(long counter)
    {
        var now = Stopwatch.GetTimestamp();
        if (now - _lastSample >= SampleTicks)
        {
            _lastSample = now;
            Keep(now, counter, handedOut: true);
        }
    }

    /// <summary>Records a raise by a synchronization.</summary>
    public void Add(long counter) => Keep(Stopwatch.GetTimestamp(), counter, handedOut: false);

    /// <summary>A copy of the records so far, to write while the counter goes on.</summary>
    public CounterRecords Copy()
    {
        var copy = new CounterRecords { Dropped = Dropped };
        copy._records.AddRange(_records);
        return copy;
    }

    /// <summary>Writes the records as 17-byte rows (timestamp, counter, 1 for a hand-out and 0 for a raise; little-endian).</summary>
    public void WriteTo(string path)
    {
        using var file = new FileStream(path, FileMode.Create, FileAccess.Write, FileShare.None, 1 << 16);
        Span<byte> row = stackalloc byte[17];
        foreach (var (timestamp, counter, handedOut) in _records)
        {
            BinaryPrimitives.WriteInt64LittleEndian(row, timestamp);
            BinaryPrimitives.WriteInt64LittleEndian(row[8..], counter);
            row[16] = handedOut ? (byte)1 : (byte)0;
            file.Write(row);
        }
    }

    private void Keep(long timestamp, long counter, bool handedOut)
    {
        if (_records.Count < Capacity)
        {
            _records.Add((timestamp, counter, handedOut));
        }
        else
        {
            Dropped++;
        }
    }
}
