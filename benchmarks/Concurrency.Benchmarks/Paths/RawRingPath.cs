using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using Concurrency.Benchmarks.Harness;

namespace Concurrency.Benchmarks.Paths;

/// <summary>
/// The second ceiling: the least a core-to-core handoff can cost here, so that no contender can honestly beat it. A
/// single-producer single-consumer ring in which each side owns one padded line and caches the other's index, reading the
/// other's line only when its cached copy says it has run out (full, or empty). The producer knows the whole block, so it
/// publishes its tail once per <see cref="PublishBatch"/> messages and at the end of the block; the consumer handles up to
/// <see cref="ReleaseBatch"/> messages between releases of its head. Both sides busy-spin on two or more cores, pausing
/// <see cref="PauseIterations"/> spin iterations (a few microseconds) between looks so that a batch builds up and each look
/// moves the other side's line once per batch rather than once per message (short pauses measured slower than our own
/// batch-drain queue, which a ceiling must not be), and yield on one core, where spinning would only burn the time the
/// other side needs. On two or more cores a side that
/// has found nothing for <see cref="PausesBeforeYield"/> pauses in a row also yields once: a no-op when its core has nothing
/// else to run, but when the machine's other work has left both sides on one core it hands the core to the side it is
/// waiting for instead of spinning out its time slice (without it, iterations on a shared 2-core machine swung from 5 to
/// 700 ns a message). No parking, no completion protocol beyond a stop flag: not a usable pipe, a yardstick.
/// </summary>
/// <remarks>
/// Both loops carry AggressiveOptimization: the consumer's thread enters its loop once for the whole case, so tiering could
/// only reach it through on-stack replacement, and the yardstick must run at full speed from its first block rather than
/// depend on warm-up. Nothing in them is virtual, so dynamic PGO would have nothing to add.
/// </remarks>
public sealed class RawRingPath : IMessagePath
{
    private const int Capacity = 1 << 14;
    private const int Mask = Capacity - 1;
    private const int PublishBatch = 32;
    private const int ReleaseBatch = 1024;
    private const int PauseIterations = 100;
    private const int PausesBeforeYield = 64;
    private static readonly bool OneCore = Environment.ProcessorCount == 1;

    private readonly Message?[] _slots = new Message?[Capacity]; // slot i is written by the producer before it publishes a tail past i, read by the consumer after
    private readonly CountingConsumer _consumer;
    private readonly Thread _thread;
    private Line _producer;          // Value = the published tail, Cached = the producer's copy of the head: written by the producer only
    private Line _consumerSide;      // Value = the released head: written by the consumer only (its copy of the tail is a local)
    private volatile bool _stopping; // set once, by Complete or Dispose, after the last block was handled
    private Exception? _failure;     // the consumer's exception (Interlocked), so a waiting producer stops instead of spinning forever

    public RawRingPath()
    {
        Consumers = new ConsumerGroup(1, 1, sharesWork: false);
        _consumer = Consumers.Members[0];
        _thread = new Thread(Consume) { IsBackground = true, Name = "raw ring consumer" };
        _thread.Start();
    }

    public ConsumerGroup Consumers { get; }

    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public void Post(Message[] messages)
    {
        var slots = _slots;
        var tail = _producer.Value;
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
        _producer.Cached = head;
    }

    public void Complete()
    {
        Stop();
        if (Volatile.Read(ref _failure) is { } failure)
        {
            throw new InvalidOperationException("The raw ring's consumer failed.", failure);
        }
    }

    public void Dispose()
    {
        if (_thread.IsAlive)
        {
            Stop();
        }

        Consumers.Dispose();
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

    private long WaitForRoom(long tail)
    {
        var idle = 0;
        while (true)
        {
            var head = Volatile.Read(ref _consumerSide.Value);
            if (tail - head < Capacity)
            {
                return head;
            }

            if (Volatile.Read(ref _failure) is { } failure)
            {
                throw new InvalidOperationException("The raw ring's consumer failed.", failure);
            }

            Idle(ref idle);
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private void Consume()
    {
        try
        {
            var slots = _slots;
            var consumer = _consumer;
            var head = 0L;
            var tail = 0L; // our copy of the producer's published tail
            var idle = 0;
            while (true)
            {
                if (head == tail)
                {
                    tail = Volatile.Read(ref _producer.Value);
                    if (head == tail)
                    {
                        if (_stopping)
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
                    consumer.Handle(slots[head & Mask]!);
                }

                Volatile.Write(ref _consumerSide.Value, head);
            }
        }
        catch (Exception ex)
        {
            Interlocked.CompareExchange(ref _failure, ex, null);
            Consumers.Signal.Fail(ex);
        }
    }

    private void Stop()
    {
        _stopping = true;
        if (!_thread.Join(RunLimit.Timeout))
        {
            throw RunLimit.Stuck("The raw ring consumer's exit");
        }
    }

    // One side's index, alone on its line and away from the adjacent line the prefetcher pairs with it, so each side writes
    // only its own line; the producer keeps its copy of the head beside its tail, where reading it costs nothing.
    [StructLayout(LayoutKind.Explicit, Size = 256)]
    private struct Line
    {
        [FieldOffset(128)]
        public long Value;

        [FieldOffset(136)]
        public long Cached;
    }
}
