using System.Buffers;
using System.Buffers.Binary;
using NATS.Client.Core;

namespace Concurrency.Messaging.Nats;

/// <summary>
/// What this package puts in front of every payload: a kind byte, the producer's 64-bit identity and the message's
/// sequence number (little-endian), then the user's serialized message. Seventeen bytes, and no NATS headers, which the
/// server and the client would have to parse for every message; JetStream's message id travels as its own header.
/// </summary>
/// <remarks>
/// A data message carries its producer's sequence number, 1, 2, 3...; an end marker carries how many data messages its
/// producer posted, and no payload. A payload too short for the envelope, with an unknown kind, or that the user's
/// serializer cannot read is <see cref="EnvelopeKind.Malformed"/>: counted by the consumer, never handed to its handler.
/// </remarks>
internal static class Envelope
{
    /// <summary>The envelope's length in bytes.</summary>
    public const int Length = 1 + sizeof(ulong) + sizeof(long);

    /// <summary>The highest sequence number an envelope may carry: far beyond any producer's life, and far enough below
    /// <see cref="long.MaxValue"/> that a consumer's arithmetic on it (a window above it, the next one expected) cannot overflow.</summary>
    public const long MaxSequence = long.MaxValue / 4;

    /// <summary>The subject that carries <paramref name="subject"/>'s end markers.</summary>
    public static string EndSubject(string subject) => subject + "._end";

    /// <summary>JetStream's message id for a producer's message: unique per producer and sequence, the same for a resend.</summary>
    public static string MessageId(ulong producer, long sequence) => MessageId(MessageIdPrefix(producer), sequence);

    /// <summary>What every message id of a producer starts with (a producer keeps it rather than format its identity per message).</summary>
    public static string MessageIdPrefix(ulong producer) => $"{producer:x16}.";

    /// <summary>The message id of the producer whose <see cref="MessageIdPrefix"/> is <paramref name="prefix"/>.</summary>
    public static string MessageId(string prefix, long sequence) => string.Create(System.Globalization.CultureInfo.InvariantCulture, $"{prefix}{sequence}");

    /// <summary>A producer's identity as the counts show it: 16 hexadecimal digits.</summary>
    public static string ProducerName(ulong producer) => producer.ToString("x16", System.Globalization.CultureInfo.InvariantCulture);

    /// <summary>Writes data messages (with the user's serializer) and end markers.</summary>
    public sealed class Writer<T>(INatsSerialize<T> inner) : INatsSerialize<Outgoing<T>>
    {
        public void Serialize(IBufferWriter<byte> bufferWriter, Outgoing<T> value)
        {
            var span = bufferWriter.GetSpan(Length);
            span[0] = (byte)value.Kind;
            BinaryPrimitives.WriteUInt64LittleEndian(span[1..], value.Producer);
            BinaryPrimitives.WriteInt64LittleEndian(span[(1 + sizeof(ulong))..], value.Sequence);
            bufferWriter.Advance(Length);
            if (value.Kind == EnvelopeKind.Data)
            {
                inner.Serialize(bufferWriter, value.Message);
            }
        }
    }

    /// <summary>Reads what <see cref="Writer{T}"/> wrote; never throws (a payload it cannot read comes back malformed).</summary>
    public sealed class Reader<T>(INatsDeserialize<T> inner) : INatsDeserialize<Incoming<T>>
    {
        public Incoming<T> Deserialize(in ReadOnlySequence<byte> buffer)
        {
            if (buffer.Length < Length)
            {
                return Incoming<T>.Malformed;
            }

            Span<byte> head = stackalloc byte[Length];
            buffer.Slice(0, Length).CopyTo(head);
            var kind = (EnvelopeKind)head[0];
            var producer = BinaryPrimitives.ReadUInt64LittleEndian(head[1..]);
            var sequence = BinaryPrimitives.ReadInt64LittleEndian(head[(1 + sizeof(ulong))..]);
            if (sequence < 1 && kind == EnvelopeKind.Data || sequence is < 0 or > MaxSequence)
            {
                return Incoming<T>.Malformed;
            }

            switch (kind)
            {
                case EnvelopeKind.Data:
                    try
                    {
                        var message = inner.Deserialize(buffer.Slice(Length));
                        return new Incoming<T>(EnvelopeKind.Data, producer, sequence, message!);
                    }
#pragma warning disable CA1031 // the user's deserializer may throw anything; the message is counted malformed, not lost in silence
                    catch (Exception)
#pragma warning restore CA1031
                    {
                        return Incoming<T>.Malformed;
                    }

                case EnvelopeKind.End when buffer.Length == Length:
                    return new Incoming<T>(EnvelopeKind.End, producer, sequence, default!);
                default:
                    return Incoming<T>.Malformed;
            }
        }
    }
}

/// <summary>What an envelope holds.</summary>
internal enum EnvelopeKind : byte
{
    /// <summary>Not an envelope this package wrote, or a payload the user's serializer could not read.</summary>
    Malformed = 0,

    /// <summary>A message, with its producer's sequence number.</summary>
    Data = 1,

    /// <summary>A producer's end: the sequence field says how many data messages it posted.</summary>
    End = 2,
}

/// <summary>A message on its way out.</summary>
internal readonly record struct Outgoing<T>(EnvelopeKind Kind, ulong Producer, long Sequence, T Message);

/// <summary>A message as it arrived.</summary>
internal readonly record struct Incoming<T>(EnvelopeKind Kind, ulong Producer, long Sequence, T Message)
{
    public static Incoming<T> Malformed => new(EnvelopeKind.Malformed, 0, 0, default!);
}
