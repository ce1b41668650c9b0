using System.Runtime.InteropServices;
using Concurrency.Benchmarks.Backbone.Latency;

namespace Concurrency.Benchmarks.Backbone.Harness;

/// <summary>
/// Counts, checksums and order-checks what one consumer handled, over the whole life of a path (totals never reset, so
/// the runner compares them before and after each block). Order is checked per producer: each message names the sequence
/// its producer posts next, and a message that is not the one expected from its producer counts as out of order.
/// </summary>
/// <remarks>
/// Concurrency rule: <see cref="Handle"/> runs on the consumer's thread only, and only that thread writes the counters and
/// the per-producer sequences. The runner writes the target before it posts a block (the path's handoff publishes it to
/// the consumer with the first message) and reads the counters only after the block's <see cref="BlockSignal"/> released
/// it (the signal publishes them back). The hot fields sit alone on their cache lines: a producer sharing a line with
/// them would pay for every message the consumer counts, and the benchmark would measure the harness.
/// </remarks>
public sealed class CountingConsumer
{
    private readonly BlockSignal _signal;
    private readonly bool _sharesWork;
    // Per producer, the sequence expected next: consumer's thread only, written on every message. Each producer's entry
    // sits alone on a cache line (SequenceStride longs apart, a line's worth before the first and after the last), so
    // the write cannot invalidate a line that a neighbouring object, such as the pipe the producer reads on every post,
    // shares with a small unpadded array.
    private readonly long[] _nextSequence;
    private const int SequenceStride = 8;
    private Padded _state;                 // counters: consumer's thread only; target: the runner, between blocks (see remarks)
    private LatencyRecorder? _recorder;    // set by the runner before a block, as the target is; read by the consumer's thread

    public CountingConsumer(BlockSignal signal, int producers, bool sharesWork)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(producers);
        _signal = signal;
        _sharesWork = sharesWork;
        _nextSequence = new long[(producers + 2) * SequenceStride];
    }

    public long Count => Volatile.Read(ref _state.Count);

    public long Checksum => Volatile.Read(ref _state.Checksum);

    /// <summary>Gets how many messages were not the next one from their producer (not counted when consumers share work).</summary>
    public long OutOfOrder => Volatile.Read(ref _state.OutOfOrder);

    /// <summary>Runs on the consumer's thread only.</summary>
    public void Handle(Message message)
    {
        ref var state = ref _state;
        state.Count++;
        state.Checksum += message.Id;
        if (_sharesWork)
        {
            // A share sees gaps in every producer's sequence, so there is no order to check; the runner checks the sum.
            _signal.HandledShared();
            return;
        }

        ref var next = ref _nextSequence[(message.Producer + 1) * SequenceStride];
        if (message.Sequence != next)
        {
            state.OutOfOrder++;
        }

        // Only the latency command sets a recorder: elsewhere this is one predictable branch on a field of this thread's line.
        _recorder?.Handled(state.Count);

        next = message.NextSequence;
        if (state.Count == state.Target)
        {
            _signal.Arrive();
        }
    }

    /// <summary>
    /// Runner only, before it posts the first message it is to time (consumer idle): from then on the consumer hands each
    /// message's place in its count to <paramref name="recorder"/> as it handles it (the latency command; one recorder per
    /// consumer). Not for work-sharing consumers, whose count says nothing of a message's place in the run.
    /// </summary>
    internal void Record(LatencyRecorder recorder)
    {
        if (_sharesWork)
        {
            throw new InvalidOperationException("A work-sharing consumer's count is not a message's place in the run; it cannot time messages.");
        }

        Volatile.Write(ref _recorder, recorder);
    }

    /// <summary>Runner only, before it posts a block: the total count at which this consumer has handled the block.</summary>
    internal void Expect(long total) => Volatile.Write(ref _state.Target, total);

    [StructLayout(LayoutKind.Explicit, Size = 192)]
    private struct Padded
    {
        [FieldOffset(64)]
        public long Count;

        [FieldOffset(72)]
        public long Checksum;

        [FieldOffset(80)]
        public long OutOfOrder;

        [FieldOffset(88)]
        public long Target;
    }
}
