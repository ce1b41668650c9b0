using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Concurrency.Benchmarks.PlainLoop.Shapes;

/// <summary>
/// The ceiling in every shape: <see cref="Paths.RawRingPath"/>'s busy-spinning single-producer ring, for any message type
/// and a handler per message, posted one message at a time as a user's loop posts. Each side owns one padded line and
/// caches the other's index, reading the other's line only when its copy says it ran out; the producer publishes its
/// tail once per <see cref="PublishBatch"/> posts and at <see cref="Flush"/>; the consumer releases its head once per
/// <see cref="ReleaseBatch"/>. Both sides pause between looks on two or more cores (yielding every
/// <see cref="PausesBeforeYield"/> pauses), and yield on one. No parking, no completion beyond a stop flag: a yardstick.
/// </summary>
internal sealed class RawRing<T>
{
    private const int Capacity = 1 << 14;
    private const int Mask = Capacity - 1;
    private const int PublishBatch = 32;
    private const int ReleaseBatch = 1024;
    private const int PauseIterations = 100;
    private const int PausesBeforeYield = 64;
    private static readonly bool OneCore = Environment.ProcessorCount == 1;

    private readonly T[] _slots = new T[Capacity]; // slot i is written by the producer before it publishes a tail past i
    private readonly Action<T> _handler;
    private readonly Thread _thread;
    private RawRingLine _producer;          // Value = the published tail, Cached = the producer's copy of the head: the producer's
    private RawRingLine _consumer;          // Value = the released head: written by the consumer only
    private long _tail;              // the producer's next slot (published or not): the producer's only
    private volatile bool _stopping; // set once by Stop, after the producer's last Flush

    public RawRing(Action<T> handler)
    {
        _handler = handler;
        _thread = new Thread(Consume) { IsBackground = true, Name = "raw ring consumer" };
        _thread.Start();
    }

    /// <summary>Producer only: writes one message, publishing every <see cref="PublishBatch"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Post(T message)
    {
        var tail = _tail;
        if (tail - _producer.Cached == Capacity)
        {
            Volatile.Write(ref _producer.Value, tail);
            _producer.Cached = WaitForRoom(tail);
        }

        _slots[tail & Mask] = message;
        _tail = ++tail;
        if ((tail & (PublishBatch - 1)) == 0)
        {
            Volatile.Write(ref _producer.Value, tail);
        }
    }

    /// <summary>Producer only: publishes what was written.</summary>
    public void Flush() => Volatile.Write(ref _producer.Value, _tail);

    /// <summary>Producer only, after its last <see cref="Flush"/>: waits until the consumer handled everything, then stops it.</summary>
    public void Stop(TimeSpan limit)
    {
        if (_stopping)
        {
            return;
        }

        Flush();
        _stopping = true;
        if (!_thread.Join(limit))
        {
            throw new TimeoutException($"The raw ring's consumer did not stop within {limit.TotalSeconds:0} s.");
        }
    }

    private static void Idle(ref int idle)
    {
        if (OneCore || ++idle % PausesBeforeYield == 0)
        {
            Thread.Yield();
        }
        else
        {
            Thread.SpinWait(PauseIterations);
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private long WaitForRoom(long tail)
    {
        var idle = 0;
        while (true)
        {
            var head = Volatile.Read(ref _consumer.Value);
            if (tail - head < Capacity)
            {
                return head;
            }

            Idle(ref idle);
        }
    }

    // The consumer's thread enters this loop once for the ring's life: compiled optimized from the start (see RawRingPath).
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private void Consume()
    {
        var head = 0L;
        var released = 0L;
        var idle = 0;
        while (true)
        {
            var stopping = _stopping; // read before the tail: a stop seen here means the final tail is visible below
            var tail = Volatile.Read(ref _producer.Value);
            if (tail == head)
            {
                if (stopping)
                {
                    Volatile.Write(ref _consumer.Value, head);
                    return;
                }

                if (released != head)
                {
                    Volatile.Write(ref _consumer.Value, head);
                    released = head;
                }

                Idle(ref idle);
                continue;
            }

            idle = 0;
            for (; head < tail; head++)
            {
                _handler(_slots[head & Mask]);
                if (head - released == ReleaseBatch)
                {
                    Volatile.Write(ref _consumer.Value, head);
                    released = head;
                }
            }
        }
    }
}

/// <summary>One side's index of a <see cref="RawRing{T}"/> alone on its cache lines (outside the generic class: a generic type cannot have an explicit layout).</summary>
[StructLayout(LayoutKind.Explicit, Size = 192)]
internal struct RawRingLine
{
    [FieldOffset(64)]
    public long Value;

    [FieldOffset(72)]
    public long Cached;
}
