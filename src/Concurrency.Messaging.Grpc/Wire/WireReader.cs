namespace Concurrency.Messaging.Grpc;

/// <summary>Reads protocol buffers' wire format from a span: varints, length-delimited fields, and unknown fields skipped.</summary>
internal ref struct WireReader(ReadOnlySpan<byte> data)
{
    private const int Varint = 0;
    private const int Fixed64 = 1;
    private const int LengthDelimited = 2;
    private const int Fixed32 = 5;

    private readonly ReadOnlySpan<byte> _data = data;
    private int _position;

    public readonly bool End => _position >= _data.Length;

    /// <summary>Reads a field's key: its number and its wire type.</summary>
    public (int Field, int WireType) ReadKey()
    {
        var key = ReadVarint();
        var field = key >> 3;
        if (field is 0 or > int.MaxValue)
        {
            throw Malformed("a field number out of range");
        }

        return ((int)field, (int)(key & 7));
    }

    public ulong ReadVarint()
    {
        ulong value = 0;
        for (var shift = 0; shift < 64; shift += 7)
        {
            if (_position >= _data.Length)
            {
                throw Malformed("a varint cut short");
            }

            var b = _data[_position++];
            if (shift == 63 && b > 1)
            {
                throw Malformed("a varint past 64 bits");
            }

            value |= (ulong)(b & 0x7F) << shift;
            if (b < 0x80)
            {
                return value;
            }
        }

        throw Malformed("a varint longer than ten bytes");
    }

    public ReadOnlySpan<byte> ReadLengthDelimited()
    {
        var length = ReadVarint();
        if (length > (ulong)(_data.Length - _position))
        {
            throw Malformed("a length past the end of the message");
        }

        var field = _data.Slice(_position, (int)length);
        _position += (int)length;
        return field;
    }

    /// <summary>Reads past the value of a field this client does not know (or does not expect with <paramref name="wireType"/>).</summary>
    public void Skip(int wireType)
    {
        switch (wireType)
        {
            case Varint:
                ReadVarint();
                break;
            case Fixed64:
                Advance(8);
                break;
            case LengthDelimited:
                ReadLengthDelimited();
                break;
            case Fixed32:
                Advance(4);
                break;
            default:
                throw Malformed($"wire type {wireType}");
        }
    }

    private void Advance(int count)
    {
        if (count > _data.Length - _position)
        {
            throw Malformed("a fixed-size field cut short");
        }

        _position += count;
    }

    private static InvalidDataException Malformed(string what) => new($"The server's batch is malformed: {what}.");
}
