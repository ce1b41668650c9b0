using System.Runtime.InteropServices;

namespace Concurrency.Messaging.Pipes;

/// <summary>
/// One side's hot fields of a <see cref="SingleProducerRing{T}"/>, alone on their cache lines: 64 bytes of padding before
/// and after, so the producer's writes never invalidate the line the consumer spins on, nor the reverse (false sharing).
/// </summary>
[StructLayout(LayoutKind.Explicit, Size = 192)]
internal struct PaddedCounters
{
    /// <summary>The side's own index: the producer's tail or the consumer's head. Written only by its owner.</summary>
    [FieldOffset(64)]
    public long Index;

    /// <summary>The owner's last read of the other side's index, so it touches the other's line only when it must.</summary>
    [FieldOffset(72)]
    public long CachedOther;

    /// <summary>Producer: 1 while a post is between its closed check and its publish. Consumer: 1 while parked or about to.</summary>
    [FieldOffset(80)]
    public int Flag;

    /// <summary>Producer: 1 while it waits for room.</summary>
    [FieldOffset(84)]
    public int Waiting;
}
