using System.Buffers.Binary;

namespace Concurrency.Messaging.Tests.Logs;

/// <summary>
/// The entries the log tests append: who wrote it and its number in that writer's sequence, then a filler derived from
/// both, of a length that varies with the number, so a Get that returns another entry's bytes, or a torn one, is caught.
/// </summary>
internal static class LogEntries
{
    public static byte[] Create(int writer, int sequence)
    {
        var entry = new byte[8 + (sequence % 5 * 7)];
        BinaryPrimitives.WriteInt32LittleEndian(entry, writer);
        BinaryPrimitives.WriteInt32LittleEndian(entry.AsSpan(4), sequence);
        for (var i = 8; i < entry.Length; i++)
        {
            entry[i] = (byte)((writer * 31) + sequence + i);
        }

        return entry;
    }

    /// <summary>Reads back who wrote <paramref name="entry"/>, asserting that all its bytes are what that writer wrote.</summary>
    public static (int Writer, int Sequence) Read(byte[] entry)
    {
        Assert.True(entry.Length >= 8, $"an entry of {entry.Length} bytes is torn");
        var writer = BinaryPrimitives.ReadInt32LittleEndian(entry);
        var sequence = BinaryPrimitives.ReadInt32LittleEndian(entry.AsSpan(4));
        Assert.Equal(Create(writer, sequence), entry);
        return (writer, sequence);
    }

    /// <summary>A log as format 0 wrote it: from offset 0, records of length and CRC-32C (of length and bytes), then the bytes.</summary>
    public static byte[] FormatZeroLog(int count)
    {
        var file = new List<byte>();
        for (var i = 0; i < count; i++)
        {
            var entry = Create(0, i);
            var header = new byte[8];
            BinaryPrimitives.WriteInt32LittleEndian(header, entry.Length);
            BinaryPrimitives.WriteUInt32LittleEndian(header.AsSpan(4), LogRecord.Checksum(entry));
            file.AddRange(header);
            file.AddRange(entry);
        }

        return [.. file];
    }
}
