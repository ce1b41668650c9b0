using System.Buffers.Binary;

namespace Concurrency.Benchmarks.Logs;

/// <summary>
/// The experiment's 64-byte entry: the writer thread and its sequence number, then filler derived from the writer, so that
/// a read-back entry proves who wrote it and that no byte of it was lost or mixed with another writer's. A writer fills
/// its buffer once (<see cref="Prepare"/>) and then writes only the sequence per append (<see cref="Number"/>), so making
/// the entry costs the clock next to nothing.
/// </summary>
public static class LogEntry
{
    public const int Size = 64;

    public static void Prepare(Span<byte> entry, int writer)
    {
        BinaryPrimitives.WriteInt32LittleEndian(entry, writer);
        for (var i = 8; i < Size; i++)
        {
            entry[i] = (byte)((writer * 7) + i);
        }
    }

    public static void Number(Span<byte> entry, int sequence) => BinaryPrimitives.WriteInt32LittleEndian(entry[4..], sequence);

    /// <summary>Reads back writer and sequence, or throws when the entry is not one a writer of this run wrote.</summary>
    public static (int Writer, int Sequence) Check(byte[] entry, int writers, int perWriter)
    {
        if (entry.Length != Size)
        {
            throw new LabVerificationException($"An entry of {entry.Length} bytes came back; {Size} were appended.");
        }

        var writer = BinaryPrimitives.ReadInt32LittleEndian(entry);
        var sequence = BinaryPrimitives.ReadInt32LittleEndian(entry.AsSpan(4));
        Span<byte> expected = stackalloc byte[Size];
        Prepare(expected, writer);
        Number(expected, sequence);
        if ((uint)writer >= (uint)writers || (uint)sequence >= (uint)perWriter || !expected.SequenceEqual(entry))
        {
            throw new LabVerificationException($"An entry came back that no writer appended (writer {writer}, sequence {sequence}).");
        }

        return (writer, sequence);
    }
}
