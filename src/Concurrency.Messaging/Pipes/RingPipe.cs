using System.Numerics;

namespace Concurrency.Messaging.Pipes;

/// <summary>
/// Bounded lock-free rings for exactly one producer: one ring per consumer (broadcast). Consumers drain in batches and
/// park only when their ring is empty; the producer waits only when a ring is full.
/// </summary>
/// <remarks>
/// Closing must never strand a message that a racing post published. A post raises the producer's posting flag, checks
/// closed, publishes, and lowers the flag, all without a fence; <see cref="Close"/> sets closed, issues a process-wide
/// barrier (once per pipe, on the rare side), and only then lets consumers finish: a consumer that sees the pipe closed waits
/// for the flag to drop and drains once more. Parking uses an ordinary fence on the parking side and a bounded wait instead
/// (see <see cref="ParkTimeout"/>).
/// </remarks>
internal sealed class RingPipe<T> : PipeBase<T>
{
    /// <summary>How long a producer facing a full ring spins and yields before it parks.</summary>
    private const int SpinsBeforePark = 200;

    /// <summary>
    /// The longest a parked side sleeps without being woken. The hot paths check the other side's parked flag without a
    /// fence; a process-wide barrier on the parking side would make that exact, but costs about 50 µs on a 2-core VM (measured
    /// here), more than the rare lost wake-up it prevents.
    /// </summary>
    private static readonly TimeSpan ParkTimeout = TimeSpan.FromMilliseconds(1);

    private readonly SingleProducerRing<T>[] _rings;
    private readonly Action<T>[] _handlers;
    private readonly WakeSignal _roomWake = new();
    private readonly Func<bool> _closeFenced;
    private PaddedCounters _producer; // Flag = 1 while a post is in flight; Waiting = 1 while the producer waits for room
    private int _closed;              // 0 → 1 once, in Close; read by the producer on every post
    private int _closeFencedFlag;     // 0 → 1 once, after Close's barrier: from here a consumer may finish

    public RingPipe(IReadOnlyList<Action<T>> handlers, PipeOptions options)
        : base(PipeKind.Ring, options)
    {
        _handlers = [.. handlers];
        var capacity = (int)BitOperations.RoundUpToPowerOf2((uint)(options.Capacity ?? Pipe.DefaultRingCapacity));
        _rings = new SingleProducerRing<T>[_handlers.Length];
        for (var i = 0; i < _rings.Length; i++)
        {
            _rings[i] = new SingleProducerRing<T>(capacity);
        }

        _closeFenced = () => Volatile.Read(ref _closeFencedFlag) != 0;
        StartConsumerThreads(_handlers.Length, Consume);
    }

    public override bool TryPost(T message)
    {
        Volatile.Write(ref _producer.Flag, 1);
        if (Volatile.Read(ref _closed) != 0 || !AllHaveRoom())
        {
            Volatile.Write(ref _producer.Flag, 0);
            return false;
        }

        foreach (var ring in _rings)
        {
            ring.Publish(message);
        }

        Volatile.Write(ref _producer.Flag, 0);
        foreach (var ring in _rings)
        {
            ring.WakeConsumerIfParked();
        }

        return true;
    }

    public override void Post(T message, CancellationToken cancellationToken = default)
    {
        var spinner = default(SpinWait);
        while (!TryPost(message))
        {
            ThrowIfClosed();
            cancellationToken.ThrowIfCancellationRequested();
            if (spinner.Count < SpinsBeforePark)
            {
                spinner.SpinOnce(sleep1Threshold: -1);
                continue;
            }

            if (RaiseWaitingFlag())
            {
                try
                {
                    _roomWake.Wait(ParkTimeout, cancellationToken);
                }
                finally
                {
                    Volatile.Write(ref _producer.Waiting, 0);
                }
            }

            spinner = default;
        }
    }

    public override ValueTask PostAsync(T message, CancellationToken cancellationToken = default)
    {
        if (cancellationToken.IsCancellationRequested)
        {
            return ValueTask.FromCanceled(cancellationToken);
        }

        return TryPost(message) ? default : PostSlowAsync(message, cancellationToken);
    }

    protected override void Close()
    {
        Volatile.Write(ref _closed, 1);
        Interlocked.MemoryBarrierProcessWide();
        Volatile.Write(ref _closeFencedFlag, 1);
        foreach (var ring in _rings)
        {
            ring.ConsumerWake.Set();
        }

        _roomWake.Set();
    }

    private async ValueTask PostSlowAsync(T message, CancellationToken cancellationToken)
    {
        while (!TryPost(message))
        {
            ThrowIfClosed();
            if (RaiseWaitingFlag())
            {
                try
                {
                    await _roomWake.WaitAsync(ParkTimeout, cancellationToken).ConfigureAwait(false);
                }
                finally
                {
                    Volatile.Write(ref _producer.Waiting, 0);
                }
            }
        }
    }

    /// <summary>
    /// Raises the waiting flag, then re-checks behind a fence. Consumers read the flag after releasing room without a fence
    /// of their own, so a wake-up can be missed in a window of nanoseconds; the wait is bounded by <see cref="ParkTimeout"/>
    /// and re-checks, so that costs a short delay, never a message.
    /// </summary>
    /// <returns><see langword="true"/> if the caller must wait (and later lower the flag).</returns>
    private bool RaiseWaitingFlag()
    {
        Volatile.Write(ref _producer.Waiting, 1);
        Interlocked.MemoryBarrier();
        if (AllHaveRoom() || Volatile.Read(ref _closed) != 0)
        {
            Volatile.Write(ref _producer.Waiting, 0);
            return false;
        }

        return true;
    }

    private void ThrowIfClosed()
    {
        if (Volatile.Read(ref _closed) != 0)
        {
            throw new PipeClosedException();
        }
    }

    private bool AllHaveRoom()
    {
        foreach (var ring in _rings)
        {
            if (!ring.HasRoom())
            {
                return false;
            }
        }

        return true;
    }

    private void Consume(int consumer)
    {
        var ring = _rings[consumer];
        var handler = _handlers[consumer];
        var head = ring.Head;
        var idle = 0;
        while (true)
        {
            var tail = ring.ReadTail();
            if (tail != head)
            {
                head = HandleBatch(ring, handler, head, tail);
                ring.Release(head);
                if (Volatile.Read(ref _producer.Waiting) != 0)
                {
                    _roomWake.Set();
                }

                idle = 0;
                continue;
            }

            if (_closeFenced())
            {
                // A post that passed its closed check before Close's barrier is still publishing: let it land.
                var spinner = default(SpinWait);
                while (Volatile.Read(ref _producer.Flag) != 0)
                {
                    spinner.SpinOnce(sleep1Threshold: -1);
                }

                if (ring.ReadTail() != head)
                {
                    continue;
                }

                ring.Clear();
                return;
            }

            if (idle < Backoff.RoundsBeforePark)
            {
                Backoff.Wait(idle++);
                continue;
            }

            ring.ParkIfEmpty(head, _closeFenced, ParkTimeout);
            idle = 0;
        }
    }

    private long HandleBatch(SingleProducerRing<T> ring, Action<T> handler, long head, long tail)
    {
        try
        {
            // Stopping is checked per message, so a fault or abort stops delivery mid-batch.
            for (; head < tail && !IsStopping; head++)
            {
                handler(ring.Take(head));
            }

            if (head < tail)
            {
                CountUnhandled(tail - head);
                for (; head < tail; head++)
                {
                    ring.Take(head);
                }
            }
        }
        catch (Exception ex)
        {
            // The message at head threw; it and the rest of the batch are not handled.
            CountUnhandled(tail - head);
            for (head++; head < tail; head++)
            {
                ring.Take(head);
            }

            Fault(ex);
        }

        return head;
    }
}
