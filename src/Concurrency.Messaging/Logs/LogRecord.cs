using System.Buffers.Binary;
using System.Numerics;

namespace Concurrency.Messaging.Logs;

/// <summary>
/// The file log's format (version 1). The file starts with a header of <see cref="FileHeaderSize"/> bytes: the magic
/// <c>89 'C' 'L' 'O' 'G' 0D 0A 1A</c> (a high-bit byte, CR LF and ^Z, as PNG's, so that a text file or a line-ending
/// conversion never passes for a log), the format version (uint32, little-endian) and a CRC-32C of those 12 bytes.
/// Then records, each a header of <see cref="HeaderSize"/> bytes: a record marker (<see cref="RecordMarker"/>), the
/// entry's length (int32) and a CRC-32C of that length and the entry's bytes (uint32), all little-endian, then the bytes.
/// The marker lets a scan find the next record after a bad one, whose length can no longer be trusted, so that open can
/// tell a torn tail (nothing valid after it) from corruption in the middle (valid records after it). The checksum starts
/// from all ones and is inverted at the end (standard CRC-32C), so zeros, as a crash can leave at a file's end, never pass.
/// </summary>
/// <remarks>
/// Version 0 (before the header and the marker) had records of length and checksum only, from offset 0; open refuses such a
/// file and names <see cref="AppendLog.UpgradeFile(string)"/>, which reads it with <see cref="LegacyHeaderSize"/>.
/// </remarks>
internal static class LogRecord
{
    public const int FileHeaderSize = 16;

    public const uint FormatVersion = 1;

    public const int HeaderSize = 12;

    public const uint RecordMarker = 0x9B474CD3; // bytes D3 4C 47 9B

    public const int LegacyHeaderSize = 8;

    private static ReadOnlySpan<byte> Magic => [0x89, (byte)'C', (byte)'L', (byte)'O', (byte)'G', 0x0D, 0x0A, 0x1A];

    public static uint Checksum(ReadOnlySpan<byte> entry) => ~ChecksumUpdate(ChecksumStart(entry.Length), entry);

    /// <summary>The running checksum of a record of <paramref name="length"/> bytes before its bytes; invert it at the end.</summary>
    public static uint ChecksumStart(int length) => BitOperations.Crc32C(uint.MaxValue, (uint)length);

    /// <summary>
    /// Adds <paramref name="bytes"/> to a running checksum. Any split of the entry gives the same result: CRC-32C of a
    /// little-endian 64-bit word is that of its 8 bytes in order.
    /// </summary>
    public static uint ChecksumUpdate(uint crc, ReadOnlySpan<byte> bytes)
    {
        var i = 0;
        for (; i + sizeof(ulong) <= bytes.Length; i += sizeof(ulong))
        {
            crc = BitOperations.Crc32C(crc, BinaryPrimitives.ReadUInt64LittleEndian(bytes[i..]));
        }

        for (; i < bytes.Length; i++)
        {
            crc = BitOperations.Crc32C(crc, bytes[i]);
        }

        return crc;
    }

    /// <summary>
    /// Adds <paramref name="count"/> zero bytes to a running checksum in O(log count) steps. The running checksum is linear
    /// in its start, so the checksum of any stretch of a file follows from the running checksums at its two ends (from
    /// any common start): the scan after a bad record checks every candidate record in one pass that way.
    /// </summary>
    public static uint ChecksumZeros(uint crc, long count)
    {
        for (var i = 0; count != 0; i++, count >>= 1)
        {
            if ((count & 1) != 0)
            {
                crc = Apply(ZeroOperators[i], crc);
            }
        }

        return crc;
    }

    public static void WriteHeader(Span<byte> destination, int length, uint checksum)
    {
        BinaryPrimitives.WriteUInt32LittleEndian(destination, RecordMarker);
        BinaryPrimitives.WriteInt32LittleEndian(destination[4..], length);
        BinaryPrimitives.WriteUInt32LittleEndian(destination[8..], checksum);
    }

    /// <summary>Reads a record header; <see langword="false"/> when it does not start with the record marker.</summary>
    public static bool TryReadHeader(ReadOnlySpan<byte> source, out int length, out uint checksum)
    {
        length = BinaryPrimitives.ReadInt32LittleEndian(source[4..]);
        checksum = BinaryPrimitives.ReadUInt32LittleEndian(source[8..]);
        return BinaryPrimitives.ReadUInt32LittleEndian(source) == RecordMarker;
    }

    /// <summary>Reads a version 0 record header: length, then checksum.</summary>
    public static (int Length, uint Checksum) ReadLegacyHeader(ReadOnlySpan<byte> source)
        => (BinaryPrimitives.ReadInt32LittleEndian(source), BinaryPrimitives.ReadUInt32LittleEndian(source[4..]));

    public static void WriteFileHeader(Span<byte> destination)
    {
        Magic.CopyTo(destination);
        BinaryPrimitives.WriteUInt32LittleEndian(destination[8..], FormatVersion);
        BinaryPrimitives.WriteUInt32LittleEndian(destination[12..], FileHeaderChecksum(destination));
    }

    /// <summary>Whether <paramref name="source"/> (the file's first bytes, fewer than a header) could be a header cut short.</summary>
    public static bool IsFileHeaderPrefix(ReadOnlySpan<byte> source)
    {
        Span<byte> header = stackalloc byte[FileHeaderSize];
        WriteFileHeader(header);
        return source.Length < FileHeaderSize && header.StartsWith(source);
    }

    /// <summary>Checks a file's first <see cref="FileHeaderSize"/> bytes.</summary>
    public static FileHeaderCheck CheckFileHeader(ReadOnlySpan<byte> source, out uint version)
    {
        version = BinaryPrimitives.ReadUInt32LittleEndian(source[8..]);
        if (!source.StartsWith(Magic))
        {
            return FileHeaderCheck.NotALog;
        }

        if (BinaryPrimitives.ReadUInt32LittleEndian(source[12..]) != FileHeaderChecksum(source))
        {
            return FileHeaderCheck.Corrupt;
        }

        return version == FormatVersion ? FileHeaderCheck.Valid : FileHeaderCheck.OtherVersion;
    }

    // ZeroOperators[i] adds 2^i zero bytes to a running checksum: a 32×32 matrix over GF(2), one column per bit.
    private static readonly uint[][] ZeroOperators = BuildZeroOperators();

    private static uint[][] BuildZeroOperators()
    {
        var operators = new uint[63][];
        operators[0] = new uint[32];
        for (var bit = 0; bit < 32; bit++)
        {
            operators[0][bit] = BitOperations.Crc32C(1u << bit, (byte)0);
        }

        for (var i = 1; i < operators.Length; i++)
        {
            var previous = operators[i - 1];
            operators[i] = new uint[32];
            for (var bit = 0; bit < 32; bit++)
            {
                operators[i][bit] = Apply(previous, previous[bit]);
            }
        }

        return operators;
    }

    private static uint Apply(uint[] matrix, uint vector)
    {
        uint result = 0;
        for (var bit = 0; vector != 0; bit++, vector >>= 1)
        {
            if ((vector & 1) != 0)
            {
                result ^= matrix[bit];
            }
        }

        return result;
    }

    private static uint FileHeaderChecksum(ReadOnlySpan<byte> header) => ~BitOperations.Crc32C(
        BitOperations.Crc32C(uint.MaxValue, BinaryPrimitives.ReadUInt64LittleEndian(header)),
        BinaryPrimitives.ReadUInt32LittleEndian(header[8..]));

    /// <summary>What <see cref="CheckFileHeader"/> found.</summary>
    internal enum FileHeaderCheck
    {
        /// <summary>Our magic, this version, checksum good.</summary>
        Valid,

        /// <summary>Not our magic.</summary>
        NotALog,

        /// <summary>Our magic, but the header's checksum fails.</summary>
        Corrupt,

        /// <summary>Our magic and a good checksum, another format version.</summary>
        OtherVersion,
    }
}
