using System.Runtime.InteropServices;

namespace Concurrency.Messaging.Pipes;

/// <summary>
/// One side's hot fields of a <see cref="SingleProducerRing{T}"/>, alone on their cache lines: 64 bytes of padding before
/// and after, so the producer's writes never invalidate the line the consumer reads, nor the reverse (false sharing).
/// </summary>
[StructLayout(LayoutKind.Explicit, Size = 144)]
internal struct PaddedIndexes
{
    /// <summary>The side's own index: the producer's tail or the consumer's head. Written only by its owner.</summary>
    [FieldOffset(64)]
    public long Index;

    /// <summary>The owner's last read of the other side's index, so it touches the other's line only when it runs out.</summary>
    [FieldOffset(72)]
    public long CachedOther;
}
