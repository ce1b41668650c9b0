using System.Buffers.Binary;
using Concurrency.Benchmarks.Lab;

namespace Concurrency.Benchmarks.Logs;

/// <summary>
/// The experiment's 64-byte entry: the writer thread and its sequence number, then filler derived from both, so that a
/// read-back entry proves who wrote it and that no byte of it was lost or mixed with another.
/// </summary>
public static class LogEntry
{
    public const int Size = 64;

    public static void Write(Span<byte> entry, int writer, int sequence)
    {
        BinaryPrimitives.WriteInt32LittleEndian(entry, writer);
        BinaryPrimitives.WriteInt32LittleEndian(entry[4..], sequence);
        for (var i = 8; i < Size; i++)
        {
            entry[i] = (byte)(writer + sequence + i);
        }
    }

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
        Write(expected, writer, sequence);
        if ((uint)writer >= (uint)writers || (uint)sequence >= (uint)perWriter || !expected.SequenceEqual(entry))
        {
            throw new LabVerificationException($"An entry came back that no writer appended (writer {writer}, sequence {sequence}).");
        }

        return (writer, sequence);
    }
}
