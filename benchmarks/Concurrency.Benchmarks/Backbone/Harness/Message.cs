
namespace Concurrency.Benchmarks.Backbone.Harness;

/// <summary>
/// The small message the seed pushed: preallocated, so the allocator stays out of the measurement, and posted again every
/// invocation, so ids and sequences repeat block after block.
/// </summary>
public sealed class Message(long id, int producer, long sequence, long nextSequence)
{
    /// <summary>Gets the id, 1..count within a block; the checksum adds these up.</summary>
    public long Id { get; } = id;

    /// <summary>Gets the index of the producer that posts this message.</summary>
    public int Producer { get; } = producer;

    /// <summary>Gets the message's place among its producer's messages in a block, from 0.</summary>
    public long Sequence { get; } = sequence;

    /// <summary>
    /// Gets the sequence of this producer's next message: <see cref="Sequence"/> + 1, or 0 after its last one, because the
    /// next block starts again from 0. A consumer checks order against it, so the wrap between blocks is not a disorder.
    /// </summary>
    public long NextSequence { get; } = nextSequence;

    /// <summary>
    /// Messages 1..count for <paramref name="producers"/> producers: producer p posts messages p, p + N, p + 2N, … (0-based
    /// positions), in that order, as <see cref="ProducerThreads"/> does; their checksum is count * (count + 1) / 2.
    /// </summary>
    public static Message[] Preallocate(int count, int producers = 1)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(count);
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(producers);
        var messages = new Message[count];
        for (var i = 0; i < count; i++)
        {
            var producer = i % producers;
            var sequence = i / producers;
            var last = i + producers >= count;
            messages[i] = new Message(i + 1, producer, sequence, last ? 0 : sequence + 1);
        }

        return messages;
    }

    public static long ExpectedChecksum(int count) => (long)count * (count + 1) / 2;
}
