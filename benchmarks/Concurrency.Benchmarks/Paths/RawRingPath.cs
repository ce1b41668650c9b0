using System.Runtime.InteropServices;
using Concurrency.Benchmarks.Harness;

namespace Concurrency.Benchmarks.Paths;

/// <summary>
/// The second ceiling: the least a core-to-core handoff can cost here. A single-producer single-consumer ring with padded
/// indexes, both sides busy-spinning, the consumer draining in batches, no parking, no completion protocol beyond a null
/// sentinel. Not a usable pipe; a yardstick.
/// </summary>
public sealed class RawRingPath : IMessagePath
{
    private const int Capacity = 1 << 14;
    private const int PausesBeforeYield = 10;
    private readonly Message?[] _slots = new Message?[Capacity];
    private readonly CountingConsumer _consumer = new();
    private readonly Thread _thread;
    private Indexes _tail; // written by the producer
    private Indexes _head; // written by the consumer
    private volatile bool _finished;

    public RawRingPath()
    {
        _thread = new Thread(Consume) { IsBackground = true, Name = "raw ring consumer" };
        _thread.Start();
    }

    public IReadOnlyList<CountingConsumer> Consumers => [_consumer];

    public bool SharesWork => false;

    public void Run(Message[] messages)
    {
        foreach (var message in messages)
        {
            Publish(message);
        }

        Publish(null);
        var spinner = default(SpinWait);
        while (!_finished)
        {
            spinner.SpinOnce(sleep1Threshold: -1);
        }
    }

    public void Dispose()
    {
        if (!_finished)
        {
            Publish(null);
        }

        _thread.Join();
    }

    private void Publish(Message? message)
    {
        var tail = _tail.Value;
        var spinner = default(SpinWait);
        while (tail - _tail.Cached >= Capacity)
        {
            _tail.Cached = Volatile.Read(ref _head.Value);
            if (tail - _tail.Cached >= Capacity)
            {
                spinner.SpinOnce(sleep1Threshold: -1);
            }
        }

        _slots[tail & (Capacity - 1)] = message;
        Volatile.Write(ref _tail.Value, tail + 1);
    }

    private void Consume()
    {
        var head = 0L;
        var idle = 0;
        while (true)
        {
            var tail = Volatile.Read(ref _tail.Value);
            if (tail == head)
            {
                // Pause before looking again: polling back to back would take the producer's line on every message.
                // After a few pauses, yield: when the producer is not running beside us (one core, or vCPUs the host
                // time-slices, as on the 2-core VM this was tuned on) pausing only burns the time the producer needs.
                if (Environment.ProcessorCount > 1 && idle++ < PausesBeforeYield)
                {
                    Thread.SpinWait(1000);
                }
                else
                {
                    Thread.Yield();
                }

                continue;
            }

            idle = 0;

            for (; head < tail; head++)
            {
                var message = _slots[head & (Capacity - 1)];
                if (message is null)
                {
                    Volatile.Write(ref _head.Value, head + 1);
                    _finished = true;
                    return;
                }

                _consumer.Handle(message);
            }

            Volatile.Write(ref _head.Value, head);
        }
    }

    [StructLayout(LayoutKind.Explicit, Size = 192)]
    private struct Indexes
    {
        [FieldOffset(64)]
        public long Value;

        [FieldOffset(72)]
        public long Cached;
    }
}
