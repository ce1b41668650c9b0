using System.Buffers;
using System.Diagnostics;
using Concurrency.Messaging.Grpc;
using Google.Protobuf;

namespace Concurrency.Messaging.Grpc.Tests;

/// <summary>
/// The client's hand-written encoding of Peer/Exchange against the generated code the server uses: what one writes, the
/// other reads, field by field, including the edges of the wire format (long varints, multi-byte text, empty fields).
/// </summary>
public sealed class PeerWireTests
{
    [Fact]
    public void Encode_TheGeneratedParserReadsEveryField()
    {
        var batch = new OutgoingBatch(4) { Heartbeat = true, Acknowledged = 300 };
        batch.Sends.Add(Numbered(1, new PeerMessage("echo", "bench", new byte[] { 1, 2, 3 })));
        batch.Sends.Add(Numbered(ulong.MaxValue, new PeerMessage("ünïcødé ✓", new string('s', 200), new byte[300])));
        batch.Sends.Add(Numbered(128, new PeerMessage(string.Empty, string.Empty, ReadOnlyMemory<byte>.Empty)));

        var parsed = PeerBatch.Parser.ParseFrom(Encode(batch));

        Assert.True(parsed.Heartbeat);
        Assert.Equal(300UL, parsed.Acknowledged);
        Assert.Equal(3, parsed.Envelopes.Count);
        Assert.Equal((1UL, "echo", "bench", Hex(1, 2, 3)), Fields(parsed.Envelopes[0]));
        Assert.Equal((ulong.MaxValue, "ünïcødé ✓", new string('s', 200), Hex(new byte[300])), Fields(parsed.Envelopes[1]));
        Assert.Equal((128UL, string.Empty, string.Empty, string.Empty), Fields(parsed.Envelopes[2]));
    }

    [Fact]
    public void Encode_AnEmptyBatch_IsTheGeneratedEmptyBatch()
    {
        var bytes = Encode(new OutgoingBatch(0));

        Assert.Empty(bytes);
        Assert.Equal(new PeerBatch(), PeerBatch.Parser.ParseFrom(bytes));
    }

    [Fact]
    public void Encode_WritesWhatTheGeneratedCodeWrites()
    {
        var batch = new OutgoingBatch(1) { Acknowledged = 7 };
        batch.Sends.Add(Numbered(5, new PeerMessage("t", "s", new byte[] { 9 })));
        var generated = new PeerBatch { Acknowledged = 7 };
        generated.Envelopes.Add(new Envelope { Sequence = 5, Type = "t", Source = "s", Payload = ByteString.CopyFrom(9) });

        Assert.Equal(generated.ToByteArray(), Encode(batch));
    }

    [Fact]
    public void Encode_EveryRequestField_IsByteForByteWhatTheGeneratedCodeWrites()
    {
        using var span = new Activity("send").SetIdFormat(ActivityIdFormat.W3C).Start();
        span.TraceStateString = "vendor=ünï";
        var batch = new OutgoingBatch(3) { Heartbeat = true, Acknowledged = ulong.MaxValue };
        batch.Sends.Add(new PendingSend(new PeerMessage("echo", "bench", new byte[] { 1, 2, 3 }), 0, long.MaxValue, null) { Sequence = 1, Span = span });
        batch.Sends.Add(Numbered(ulong.MaxValue, new PeerMessage("ünïcødé ✓", new string('s', 200), new byte[300])));
        batch.Sends.Add(Numbered(128, new PeerMessage(string.Empty, string.Empty, ReadOnlyMemory<byte>.Empty)));
        var generated = new PeerBatch { Heartbeat = true, Acknowledged = ulong.MaxValue };
        generated.Envelopes.Add(new Envelope { Sequence = 1, Type = "echo", Source = "bench", Payload = ByteString.CopyFrom(1, 2, 3), TraceParent = span.Id, TraceState = "vendor=ünï" });
        generated.Envelopes.Add(new Envelope { Sequence = ulong.MaxValue, Type = "ünïcødé ✓", Source = new string('s', 200), Payload = ByteString.CopyFrom(new byte[300]) });
        generated.Envelopes.Add(new Envelope { Sequence = 128 });

        Assert.Equal(generated.ToByteArray(), Encode(batch));
    }

    [Fact]
    public void Decode_EveryReplyField_ReadsWhatTheGeneratedCodeWrites()
    {
        var generated = new PeerBatch { Heartbeat = true };
        generated.Envelopes.Add(new Envelope { Sequence = 300, Type = "t", Source = "s", Payload = ByteString.CopyFrom(5), Error = "gone", Forgotten = true });

        var reply = Assert.Single(PeerWire.Decode(generated.ToByteArray()).Replies);

        Assert.Equal((300UL, "t", "s", Hex(5), "gone"), Fields(reply));
        Assert.True(reply.Forgotten);
    }

    [Fact]
    public void Decode_ReadsWhatTheGeneratedCodeWrites()
    {
        var generated = new PeerBatch { Heartbeat = true };
        generated.Envelopes.Add(new Envelope { Sequence = 1, Type = "echo", Source = "server", Payload = ByteString.CopyFrom(1, 2) });
        generated.Envelopes.Add(new Envelope { Sequence = ulong.MaxValue, Type = "ünïcødé", Source = new string('x', 300), Payload = ByteString.CopyFrom(new byte[200]) });
        generated.Envelopes.Add(new Envelope { Sequence = 3, Error = "the handler threw" });

        var batch = PeerWire.Decode(generated.ToByteArray());

        Assert.True(batch.Heartbeat);
        Assert.Equal(3, batch.Replies.Count);
        Assert.Equal((1UL, "echo", "server", Hex(1, 2), string.Empty), Fields(batch.Replies[0]));
        Assert.Equal((ulong.MaxValue, "ünïcødé", new string('x', 300), Hex(new byte[200]), string.Empty), Fields(batch.Replies[1]));
        Assert.Equal((3UL, string.Empty, string.Empty, string.Empty, "the handler threw"), Fields(batch.Replies[2]));
    }

    [Fact]
    public void Decode_RepeatedTypeAndSource_AreDecodedOnceAndThePayloadsAreCopies()
    {
        var generated = new PeerBatch();
        var payload = new byte[] { 7 };
        generated.Envelopes.Add(new Envelope { Sequence = 1, Type = "echo", Source = "server", Payload = ByteString.CopyFrom(payload) });
        generated.Envelopes.Add(new Envelope { Sequence = 2, Type = "echo", Source = "server", Payload = ByteString.CopyFrom(payload) });
        var bytes = generated.ToByteArray();

        var batch = PeerWire.Decode(bytes);
        Array.Clear(bytes);

        Assert.Same(batch.Replies[0].Type, batch.Replies[1].Type);
        Assert.Same(batch.Replies[0].Source, batch.Replies[1].Source);
        Assert.Equal(payload, batch.Replies[1].Payload.ToArray()); // copied out: clearing the read buffer left it alone
    }

    [Fact]
    public void Decode_UnknownFieldsOfEveryWireType_AreSkipped()
    {
        var generated = new PeerBatch();
        generated.Envelopes.Add(new Envelope { Sequence = 9, Type = "t" });
        var stream = new MemoryStream();
        var output = new CodedOutputStream(stream);
        output.WriteTag(20, WireFormat.WireType.Varint);
        output.WriteUInt64(123456789);
        output.WriteTag(21, WireFormat.WireType.Fixed64);
        output.WriteFixed64(1);
        output.WriteTag(22, WireFormat.WireType.Fixed32);
        output.WriteFixed32(1);
        output.WriteTag(23, WireFormat.WireType.LengthDelimited);
        output.WriteBytes(ByteString.CopyFrom(1, 2, 3));
        output.Flush();

        var batch = PeerWire.Decode([.. stream.ToArray(), .. generated.ToByteArray()]);

        Assert.Equal(9UL, Assert.Single(batch.Replies).Sequence);
    }

    [Theory]
    [InlineData(new byte[] { 0x0A, 0x05, 0x08 })]                 // an envelope's length past the end
    [InlineData(new byte[] { 0x10 })]                             // a heartbeat key with no value
    [InlineData(new byte[] { 0x10, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01 })] // a varint of eleven bytes
    [InlineData(new byte[] { 0x18, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02 })] // a varint past 64 bits
    [InlineData(new byte[] { 0x0B })]                             // wire type 3, a group: not in this protocol
    [InlineData(new byte[] { 0x00 })]                             // field number 0
    [InlineData(new byte[] { 0x0D, 0x01 })]                       // a fixed32 cut short
    public void Decode_Malformed_ThrowsInvalidData(byte[] bytes)
    {
        Assert.Throws<InvalidDataException>(() => PeerWire.Decode(bytes));
    }

    [Fact]
    public void Decode_FromABufferInSeveralSegments_ReadsTheSame()
    {
        var generated = new PeerBatch();
        for (ulong i = 1; i <= 50; i++)
        {
            generated.Envelopes.Add(new Envelope { Sequence = i, Type = "echo", Source = "server", Payload = ByteString.CopyFrom(new byte[40]) });
        }

        var bytes = generated.ToByteArray();
        var batch = PeerWire.Decode(new SegmentedContext(bytes, segmentLength: 7));

        Assert.Equal([.. Enumerable.Range(1, 50).Select(i => (ulong)i)], batch.Replies.Select(r => r.Sequence));
    }

    private static PendingSend Numbered(ulong sequence, PeerMessage message)
        => new(message, message.WireSize, long.MaxValue, null) { Sequence = sequence };

    private static byte[] Encode(OutgoingBatch batch)
    {
        var context = new BufferContext();
        PeerWire.Encode(batch, context);
        Assert.True(context.Completed);
        return context.Written.WrittenSpan.ToArray();
    }

    // Payloads as hex, so that the tuples compare them by content.
    private static (ulong, string, string, string) Fields(Envelope envelope)
        => (envelope.Sequence, envelope.Type, envelope.Source, Convert.ToHexString(envelope.Payload.Span));

    private static (ulong, string, string, string, string) Fields(PeerReply reply)
        => (reply.Sequence, reply.Type, reply.Source, Convert.ToHexString(reply.Payload.Span), reply.Error);

    private static string Hex(params byte[] bytes) => Convert.ToHexString(bytes);

    /// <summary>What gRPC hands a serializer, checking as it does that the declared length is the length written.</summary>
    private sealed class BufferContext : SerializationContext
    {
        private int? _declared;

        public ArrayBufferWriter<byte> Written { get; } = new();

        public bool Completed { get; private set; }

        public override void SetPayloadLength(int payloadLength) => _declared = payloadLength;

        public override IBufferWriter<byte> GetBufferWriter() => Written;

        public override void Complete()
        {
            Assert.Equal(_declared, Written.WrittenCount);
            Completed = true;
        }

        public override void Complete(byte[] payload) => throw new InvalidOperationException("The encoder writes through the buffer writer.");
    }

    private sealed class SegmentedContext(byte[] bytes, int segmentLength) : DeserializationContext
    {
        public override int PayloadLength => bytes.Length;

        public override byte[] PayloadAsNewBuffer() => [.. bytes];

        public override ReadOnlySequence<byte> PayloadAsReadOnlySequence()
        {
            Segment? first = null, last = null;
            for (var start = 0; start < bytes.Length; start += segmentLength)
            {
                var segment = new Segment(bytes.AsMemory(start, Math.Min(segmentLength, bytes.Length - start)), start);
                if (last is null)
                {
                    first = segment;
                }
                else
                {
                    last.Append(segment);
                }

                last = segment;
            }

            return new ReadOnlySequence<byte>(first!, 0, last!, last!.Memory.Length);
        }
    }

    private sealed class Segment : ReadOnlySequenceSegment<byte>
    {
        public Segment(ReadOnlyMemory<byte> memory, long runningIndex)
        {
            Memory = memory;
            RunningIndex = runningIndex;
        }

        public void Append(Segment next) => Next = next;
    }
}
