using System.Buffers;

namespace Concurrency.Messaging.Nats.Tests;

public sealed class EnvelopeTests
{
    private static readonly INatsSerializer<byte[]> Raw = NatsDefaultSerializer<byte[]>.Default;

    [Fact]
    public void A_message_and_an_end_marker_come_back_as_written()
    {
        var writer = new Envelope.Writer<byte[]>(Raw);
        var reader = new Envelope.Reader<byte[]>(Raw);
        var buffer = new ArrayBufferWriter<byte>();
        writer.Serialize(buffer, new Outgoing<byte[]>(EnvelopeKind.Data, 0xfeedfacecafebeef, 42, [1, 2, 3]));
        var data = reader.Deserialize(new ReadOnlySequence<byte>(buffer.WrittenMemory));
        Assert.Equal((EnvelopeKind.Data, 0xfeedfacecafebeefUL, 42L), (data.Kind, data.Producer, data.Sequence));
        Assert.Equal([1, 2, 3], data.Message);

        buffer.Clear();
        writer.Serialize(buffer, new Outgoing<byte[]>(EnvelopeKind.End, 7, 10_000, null!));
        Assert.Equal(Envelope.Length, buffer.WrittenCount);
        var end = reader.Deserialize(new ReadOnlySequence<byte>(buffer.WrittenMemory));
        Assert.Equal((EnvelopeKind.End, 7UL, 10_000L), (end.Kind, end.Producer, end.Sequence));
    }

    public static TheoryData<byte[]> Malformed => new()
    {
        Array.Empty<byte>(),
        new byte[Envelope.Length - 1],
        Enumerable.Repeat((byte)0, Envelope.Length).ToArray(),                             // kind 0
        Kind(9, new byte[Envelope.Length - 1]),                                             // unknown kind
        Kind(1, new byte[Envelope.Length - 1]),                                             // data with sequence 0
        Kind(2, [1, 0, 0, 0, 0, 0, 0, 0, 255, 255, 255, 255, 255, 255, 255, 255]),          // end with a negative count
        Kind(2, [1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 5]),                       // end marker with a payload
        "hello, I am not an envelope"u8.ToArray(),
        Kind(1, [1, 0, 0, 0, 0, 0, 0, 0, 255, 255, 255, 255, 255, 255, 255, 127]),          // data numbered near long.MaxValue
    };

    [Theory]
    [MemberData(nameof(Malformed))]
    public void What_is_not_an_envelope_is_malformed_and_never_throws(byte[] payload)
    {
        var reader = new Envelope.Reader<byte[]>(Raw);
        Assert.Equal(EnvelopeKind.Malformed, reader.Deserialize(new ReadOnlySequence<byte>(payload)).Kind);
    }

    [Fact]
    public void A_payload_the_user_serializer_cannot_read_is_malformed()
    {
        var writer = new Envelope.Writer<byte[]>(Raw);
        var buffer = new ArrayBufferWriter<byte>();
        writer.Serialize(buffer, new Outgoing<byte[]>(EnvelopeKind.Data, 1, 1, [1]));
        var reader = new Envelope.Reader<byte[]>(new Throwing());
        Assert.Equal(EnvelopeKind.Malformed, reader.Deserialize(new ReadOnlySequence<byte>(buffer.WrittenMemory)).Kind);
    }

    [Fact]
    public void An_envelope_split_across_segments_is_read_whole()
    {
        var writer = new Envelope.Writer<byte[]>(Raw);
        var buffer = new ArrayBufferWriter<byte>();
        writer.Serialize(buffer, new Outgoing<byte[]>(EnvelopeKind.Data, 3, 5, [9, 8]));
        var bytes = buffer.WrittenMemory.ToArray();
        var first = new Segment(bytes.AsMemory(0, 5));
        var last = first.Append(bytes.AsMemory(5));
        var data = new Envelope.Reader<byte[]>(Raw).Deserialize(new ReadOnlySequence<byte>(first, 0, last, last.Memory.Length));
        Assert.Equal((EnvelopeKind.Data, 3UL, 5L), (data.Kind, data.Producer, data.Sequence));
        Assert.Equal([9, 8], data.Message);
    }

    [Fact]
    public void Message_ids_are_unique_per_producer_and_sequence_and_names_are_hexadecimal()
    {
        Assert.Equal("00000000000000ff.12", Envelope.MessageId(255, 12));
        Assert.NotEqual(Envelope.MessageId(1, 12), Envelope.MessageId(11, 2));
        Assert.Equal("00000000000000ff", Envelope.ProducerName(255));
        Assert.Equal("orders._end", Envelope.EndSubject("orders"));
    }

    private static byte[] Kind(byte kind, byte[] rest) => [kind, .. rest];

    private sealed class Throwing : INatsDeserialize<byte[]>
    {
        public byte[] Deserialize(in ReadOnlySequence<byte> buffer) => throw new FormatException("not mine");
    }

    private sealed class Segment : ReadOnlySequenceSegment<byte>
    {
        public Segment(ReadOnlyMemory<byte> memory) => Memory = memory;

        public Segment Append(ReadOnlyMemory<byte> memory)
        {
            var next = new Segment(memory) { RunningIndex = RunningIndex + Memory.Length };
            Next = next;
            return next;
        }
    }
}
