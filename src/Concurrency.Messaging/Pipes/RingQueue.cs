using System.Diagnostics;
using System.Runtime.CompilerServices;
using Concurrency.Messaging.Internal;

namespace Concurrency.Messaging.Pipes;

/// <summary>
/// A ring's consumer side, as the <see cref="TurnRunner"/> takes from it (a <see cref="RingPipe{T}"/>'s consumer, pooled or
/// on its own thread): runs of up to <see cref="RunLength"/> messages, and of at most half the ring, copied out of their
/// slots, reading the producer's tail only when it has taken everything it last saw, and handing slots back once per
/// batch (when it has taken all it saw, or half the ring, so a producer waiting for room can refill meanwhile): in a
/// stream the two sides touch each other's lines about once per batch. A take that goes idle or finishes has handed
/// everything back; a turn that yields may keep up to half the ring until its next turn's first take. The ring cannot mark
/// its consumer idle (its producer posts with no fence), so this queue marks it, on the flag the ring holds
/// (<see cref="SingleProducerRing{T}.ConsumerIdle"/>). The post reads it with no
/// fence either: the take that goes idle pays a process-wide barrier instead, once per time the consumer goes idle (a
/// pooled turn ends, a dedicated thread parks), so a post into a busy consumer costs one read (with a fence per post a
/// burst into a fresh pipe ran at 40 M msg/s, without it 250 M; 2 cores).
/// </summary>
/// <param name="ring">The ring.</param>
/// <param name="room">Where posts wait for room: woken when a hand-back frees some.</param>
/// <param name="isDrainable">Whether the pipe's close saw every accepted post land: the consumer may finish.</param>
/// <param name="batchLimit">The most slots the consumer holds before it hands them back, so the producer can refill meanwhile.</param>
internal struct RingQueue<T>(SingleProducerRing<T> ring, RoomSignal room, Func<bool> isDrainable, int batchLimit) : ITurnQueue<T>
{
    private const int RunLength = 256; // the most messages one take copies out of the ring

    private long _head = ring.Head;     // the running turn only: the next slot to take
    private long _seen = ring.Head;     // the running turn only: the tail last read, so slots before it are published
    private long _released = ring.Head; // the running turn only: slots before it are handed back to the producer

    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public TurnTake Take(ref Slot<T>[] batch, int most, bool idleIfEmpty, out int count, out T one)
    {
        count = 0;
        while (true)
        {
            if (_head != _seen)
            {
                Debug.Assert(_head - _released < batchLimit, "a take that reached the limit handed its slots back");

                // A run of what is published is copied into the turn's batch in one block copy (a run stops at the ring's
                // end, so it never wraps), so the runner hands it over in one loop rather than coming back here per message,
                // from lines of its own rather than the ring's, which the producer is filling. Copied out, its slots are
                // free: handed back below once half the ring is taken, else when the ring is found empty. A run is at most
                // half the ring, so a small full ring gives half back and delivers it while the producer refills that half.
                var run = (int)Math.Min(Math.Min(_seen - _head, most), Math.Min(RunLength, batchLimit));
                if (batch.Length < run)
                {
                    batch = new Slot<T>[Math.Min(RunLength, batchLimit)]; // once per consumer: the longest run
                }

                run = ring.CopyTo(_head, batch, run);

                _head += run;
                if (_head - _released >= batchLimit)
                {
                    // Now, so the producer refills them while the turn delivers the run. Handed back at the next take, or
                    // a whole ring's run at once, a small ring stayed full through every delivery (16 slots through the
                    // benchmark loop's path, 2 cores: 26.8 M msg/s, 32.5 M with both; results/issue-40-abba/final).
                    HandBack();
                }

                count = run;
                one = default!;
                return TurnTake.Taken;
            }

            if (_released != _head)
            {
                HandBack();
            }

            one = default!;
            _seen = ring.ReadTail();
            if (_seen != _head)
            {
                continue;
            }

            if (isDrainable())
            {
                // Close waited for every accepted post to publish before it said so: one more look sees them all.
                _seen = ring.ReadTail();
                if (_seen != _head)
                {
                    continue;
                }

                ring.Clear();
                return TurnTake.Completed;
            }

            if (!idleIfEmpty)
            {
                return TurnTake.Empty;
            }

            // Behind a process-wide barrier: the producer reads the flag with no fence after publishing
            // (RingPipe's post), and a stream then pays no fence per post.
            if (!ring.ConsumerIdle.ReleaseBehindBarrierThenLook<T, RingQueue<T>>(ref this))
            {
                return TurnTake.Idle; // nothing came, or the producer saw Idle and queued the next turn
            }
        }
    }

    public readonly bool HasWork() => ring.ReadTail() != _head || isDrainable();

    public readonly bool TryClaimIdle() => ring.ConsumerIdle.TryClaim();

    /// <summary>Hands the slots before the head back, waking posts that wait for room.</summary>
    private void HandBack()
    {
        ring.Release(_head);
        _released = _head;
        if (room.HasWaiters)
        {
            room.WakeAll();
        }
    }
}
