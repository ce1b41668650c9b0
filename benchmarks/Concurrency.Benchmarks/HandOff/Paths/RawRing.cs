using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Concurrency.Benchmarks.HandOff.Paths;

/// <summary>What a <see cref="RawRing{T, THandler}"/>'s consumer calls per message: a struct, so the call is direct.</summary>
internal interface IRawRingHandler<in T>
{
    void Handle(T message);
}

/// <summary>
/// The ceiling ring: the least a core-to-core handoff can cost here, so that no contender can honestly beat it. A
/// single-producer single-consumer ring in which each side owns one padded line and caches the other's index, reading the
/// other's line only when its cached copy says it has run out (full, or empty). The producer publishes its tail once per
/// <see cref="PublishBatch"/> messages and at the end of a block (<see cref="PostBlock"/>) or at <see cref="Flush"/>
/// (one message at a time, <see cref="Post"/>, as a user's loop posts); the consumer handles up to
/// <see cref="ReleaseBatch"/> messages between releases of its head. Both sides busy-spin on two or more cores, pausing
/// <see cref="PauseIterations"/> spin iterations (a few microseconds) between looks so that a batch builds up and each look
/// moves the other side's line once per batch rather than once per message (short pauses measured slower than our own
/// batch-drain queue, which a ceiling must not be), and yield on one core, where spinning would only burn the time the
/// other side needs. On two or more cores a side that has found nothing for <see cref="PausesBeforeYield"/> pauses in a
/// row also yields once: a no-op when its core has nothing else to run, but when the machine's other work has left both
/// sides on one core it hands the core to the side it is waiting for instead of spinning out its time slice (without it,
/// iterations on a shared 2-core machine swung from 5 to 700 ns a message). No parking, no completion protocol beyond a
/// stop flag: not a usable pipe, a yardstick.
/// </summary>
/// <remarks>
/// The posting loops and the consumer's carry AggressiveOptimization: the consumer's thread enters its loop once for the
/// ring's life, so tiering could only reach it through on-stack replacement, and the yardstick must run at full speed
/// from its first message rather than depend on warm-up. The handler is a struct, so nothing in them is virtual and
/// dynamic PGO would have nothing to add.
/// </remarks>
internal sealed class RawRing<T, THandler>
    where THandler : struct, IRawRingHandler<T>
{
    private const int Capacity = 1 << 14;
    private const int Mask = Capacity - 1;
    private const int PublishBatch = 32;
    private const int ReleaseBatch = 1024;
    private const int PauseIterations = 100;
    private const int PausesBeforeYield = 64;
    private static readonly bool OneCore = Environment.ProcessorCount == 1;

    private readonly T[] _slots = new T[Capacity]; // slot i is written by the producer before it publishes a tail past i, read by the consumer after
    private readonly THandler _handler;
    private readonly Action<Exception>? _failed;
    private readonly Thread _thread;
    private RawRingLine _producer;   // Value = the published tail, Cached = the producer's copy of the head: written by the producer only
    private RawRingLine _consumer;   // Value = the released head: written by the consumer only (its copy of the tail is a local)
    private long _tail;              // the producer's next slot, published or not: the producer's only
    private volatile bool _stopping; // set once, by Stop, after the producer's last publish
    private Exception? _failure;     // the consumer's exception (Interlocked), so a waiting producer stops instead of spinning forever

    /// <summary>Starts the consumer's thread; <paramref name="failed"/> hears a handler's exception on that thread.</summary>
    public RawRing(THandler handler, Action<Exception>? failed = null)
    {
        _handler = handler;
        _failed = failed;
        _thread = new Thread(Consume) { IsBackground = true, Name = "raw ring consumer" };
        _thread.Start();
    }

    /// <summary>Gets whether the consumer's thread still runs.</summary>
    public bool IsRunning => _thread.IsAlive;

    /// <summary>Producer only: writes a whole block, publishing every <see cref="PublishBatch"/> and at its end.</summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public void PostBlock(ReadOnlySpan<T> messages)
    {
        var slots = _slots;
        var tail = _tail;
        var head = _producer.Cached;
        var published = tail;
        foreach (var message in messages)
        {
            if (tail - head == Capacity)
            {
                // Full by our copy of the head: publish what is written, so the consumer can drain it, then refresh the copy.
                Volatile.Write(ref _producer.Value, tail);
                published = tail;
                head = WaitForRoom(tail);
            }

            slots[tail & Mask] = message;
            if (++tail - published == PublishBatch)
            {
                Volatile.Write(ref _producer.Value, tail);
                published = tail;
            }
        }

        Volatile.Write(ref _producer.Value, tail);
        _tail = tail;
        _producer.Cached = head;
    }

    /// <summary>Producer only: writes one message, publishing every <see cref="PublishBatch"/>; <see cref="Flush"/> publishes the rest.</summary>
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

    /// <summary>
    /// Producer only, after its last post: publishes, lets the consumer handle everything published, then stops it; waits
    /// at most <paramref name="limit"/>, and rethrows the consumer's failure (again on a second stop).
    /// </summary>
    /// <exception cref="TimeoutException">The consumer did not stop within <paramref name="limit"/>.</exception>
    /// <exception cref="InvalidOperationException">The handler threw.</exception>
    public void Stop(TimeSpan limit)
    {
        Flush();
        _stopping = true;
        if (!_thread.Join(limit))
        {
            throw new TimeoutException($"The raw ring's consumer did not stop within {limit.TotalSeconds:0} s.");
        }

        ThrowIfFailed();
    }

    /// <summary>One wait for the other side; <paramref name="idle"/> counts this side's empty looks in a row.</summary>
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

    private void ThrowIfFailed()
    {
        if (Volatile.Read(ref _failure) is { } failure)
        {
            throw new InvalidOperationException("The raw ring's consumer failed.", failure);
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

            ThrowIfFailed();
            Idle(ref idle);
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private void Consume()
    {
        try
        {
            var slots = _slots;
            var handler = _handler;
            var head = 0L;
            var tail = 0L; // our copy of the producer's published tail
            var idle = 0;
            while (true)
            {
                if (head == tail)
                {
                    var stopping = _stopping; // read before the tail: a stop seen here means the final tail is visible below
                    tail = Volatile.Read(ref _producer.Value);
                    if (head == tail)
                    {
                        if (stopping)
                        {
                            return;
                        }

                        Idle(ref idle);
                        continue;
                    }

                    idle = 0;
                }

                var end = Math.Min(tail, head + ReleaseBatch);
                for (; head < end; head++)
                {
                    handler.Handle(slots[head & Mask]);
                }

                Volatile.Write(ref _consumer.Value, head);
            }
        }
        catch (Exception ex)
        {
            Interlocked.CompareExchange(ref _failure, ex, null);
            _failed?.Invoke(ex);
        }
    }
}

/// <summary>
/// One side's index of a <see cref="RawRing{T, THandler}"/>, alone on its line and away from the adjacent line the
/// prefetcher pairs with it, so each side writes only its own line; the producer keeps its copy of the head beside its
/// tail, where reading it costs nothing. Outside the ring: a generic type cannot have an explicit layout.
/// </summary>
[StructLayout(LayoutKind.Explicit, Size = 256)]
internal struct RawRingLine
{
    [FieldOffset(128)]
    public long Value;

    [FieldOffset(136)]
    public long Cached;
}
