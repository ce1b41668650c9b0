using System.Buffers.Binary;
using System.Numerics;

namespace Concurrency.Messaging.Logs;

/// <summary>
/// The file log's record: a header of the entry's length (int32, little-endian) and a CRC-32C of that length and the entry's
/// bytes (uint32, little-endian), then the bytes. The checksum starts from all ones and is inverted at the end (standard
/// CRC-32C), so a header of zeros, as a crash can leave at the end of a file, never passes for an empty entry.
/// </summary>
internal static class LogRecord
{
    public const int HeaderSize = 8;

    public static uint Checksum(ReadOnlySpan<byte> entry)
    {
        var crc = BitOperations.Crc32C(uint.MaxValue, (uint)entry.Length);
        var i = 0;
        for (; i + sizeof(ulong) <= entry.Length; i += sizeof(ulong))
        {
            crc = BitOperations.Crc32C(crc, BinaryPrimitives.ReadUInt64LittleEndian(entry[i..]));
        }

        for (; i < entry.Length; i++)
        {
            crc = BitOperations.Crc32C(crc, entry[i]);
        }

        return ~crc;
    }

    public static void WriteHeader(Span<byte> destination, int length, uint checksum)
    {
        BinaryPrimitives.WriteInt32LittleEndian(destination, length);
        BinaryPrimitives.WriteUInt32LittleEndian(destination[4..], checksum);
    }

    public static (int Length, uint Checksum) ReadHeader(ReadOnlySpan<byte> source)
        => (BinaryPrimitives.ReadInt32LittleEndian(source), BinaryPrimitives.ReadUInt32LittleEndian(source[4..]));
}
