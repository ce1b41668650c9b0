using System.Buffers;
using System.Diagnostics;
using System.Text;
using Concurrency.Messaging.Grpc.Protocol;
using Grpc.Core;

namespace Concurrency.Messaging.Grpc;

/// <summary>
/// The client's side of <c>Peer/Exchange</c>, encoded by hand in the wire format of <c>peer.proto</c>'s <c>PeerBatch</c>,
/// which the server still reads and writes with the generated code. The pump writes each envelope straight from its
/// <see cref="PendingSend"/> and the listener reads replies into <see cref="PeerReply"/> values: no envelope, byte string
/// or repeated field per message, and the type and source strings of a batch's replies decoded once while they repeat.
/// </summary>
/// <remarks>
/// <para>
/// Why the one schema has two codecs: this one exists for speed. With the generated code every message cost the client an
/// <c>Envelope</c> and a <c>ByteString</c> on the way out and an <c>Envelope</c>, two strings and a <c>ByteString</c> on
/// the way back; encoding by hand took the client's allocation from 651 to 427 bytes a message and its CPU down by about a
/// fifth at 5,000 senders, and async mode from 0.72 to 0.86 (and 0.82 to 0.94) of raw batches in runs made back to back
/// (commit 9f83515; results/README.md, "gRPC streaming peers"). The server keeps the generated code: the generated types are
/// the package's public protocol for raw clients, and the server already makes no envelope per message (it turns each
/// request envelope into its reply, and remembers replies without objects). <c>PeerWireTests</c> checks that both codecs
/// agree byte for byte, both ways. docs/grpc.md says the same.
/// </para>
/// <para>
/// Field numbers, from <c>peer.proto</c>: <c>PeerBatch</c> 1 envelopes, 2 heartbeat, 3 acknowledged; <c>Envelope</c> 1
/// sequence, 2 type, 3 source, 4 payload, 5 error, 6 forgotten, 7 trace parent, 8 trace state. Zero and empty fields are left out, as the generated code does, and
/// fields this client does not know are skipped, so either side may add fields.
/// </para>
/// </remarks>
internal static class PeerWire
{
    private const byte EnvelopesKey = (1 << 3) | 2;
    private const byte HeartbeatKey = 2 << 3;
    private const byte AcknowledgedKey = 3 << 3;
    private const byte SequenceKey = 1 << 3;
    private const byte TypeKey = (2 << 3) | 2;
    private const byte SourceKey = (3 << 3) | 2;
    private const byte PayloadKey = (4 << 3) | 2;
    private const byte TraceParentKey = (7 << 3) | 2;
    private const byte TraceStateKey = (8 << 3) | 2;
    private const int MaxVarintBytes = 10;

    private static readonly UTF8Encoding Utf8 = new(encoderShouldEmitUTF8Identifier: false, throwOnInvalidBytes: false);

    /// <summary>Gets the bidirectional call, under the generated service's name.</summary>
    public static Method<OutgoingBatch, ReplyBatch> Exchange { get; } = new(
        MethodType.DuplexStreaming,
        Peer.Descriptor.FullName,
        "Exchange",
        new Marshaller<OutgoingBatch>(Encode, static _ => throw new NotSupportedException("The client writes requests; it never reads one.")),
        new Marshaller<ReplyBatch>(static (_, _) => throw new NotSupportedException("The client reads replies; it never writes one."), Decode));

    /// <summary>Encodes <paramref name="batch"/> as a <c>PeerBatch</c>.</summary>
    public static void Encode(OutgoingBatch batch, SerializationContext context)
    {
        var sends = batch.Sends;

        // Per send: its envelope's length and the UTF-8 lengths of its type and source, counted once for both passes.
        var sizes = ArrayPool<int>.Shared.Rent(Math.Max(1, 3 * sends.Count));
        try
        {
            var total = 0;
            for (var i = 0; i < sends.Count; i++)
            {
                var message = sends[i].Message;
                var typeBytes = Utf8Length(message.Type);
                var sourceBytes = Utf8Length(message.Source);
                var length = EnvelopeLength(sends[i], typeBytes, sourceBytes);
                (sizes[3 * i], sizes[(3 * i) + 1], sizes[(3 * i) + 2]) = (length, typeBytes, sourceBytes);
                total += 1 + VarintSize((uint)length) + length;
            }

            if (batch.Heartbeat)
            {
                total += 2;
            }

            if (batch.Acknowledged != 0)
            {
                total += 1 + VarintSize(batch.Acknowledged);
            }

            context.SetPayloadLength(total);
            var writer = context.GetBufferWriter();
            for (var i = 0; i < sends.Count; i++)
            {
                var length = sizes[3 * i];
                var span = writer.GetSpan(1 + MaxVarintBytes + length);
                span[0] = EnvelopesKey;
                var written = 1 + WriteVarint(span[1..], (uint)length);
                written += WriteEnvelope(span[written..], sends[i], sizes[(3 * i) + 1], sizes[(3 * i) + 2]);
                writer.Advance(written);
            }

            if (batch.Heartbeat || batch.Acknowledged != 0)
            {
                var span = writer.GetSpan(2 + 1 + MaxVarintBytes);
                var written = 0;
                if (batch.Heartbeat)
                {
                    span[written++] = HeartbeatKey;
                    span[written++] = 1;
                }

                if (batch.Acknowledged != 0)
                {
                    span[written++] = AcknowledgedKey;
                    written += WriteVarint(span[written..], batch.Acknowledged);
                }

                writer.Advance(written);
            }

            context.Complete();
        }
        finally
        {
            ArrayPool<int>.Shared.Return(sizes);
        }
    }

    /// <summary>Decodes a <c>PeerBatch</c> from the server.</summary>
    /// <exception cref="InvalidDataException">The bytes are not a well-formed batch.</exception>
    public static ReplyBatch Decode(DeserializationContext context)
    {
        var payload = context.PayloadAsReadOnlySequence();
        if (payload.IsSingleSegment)
        {
            return Decode(payload.FirstSpan);
        }

        var length = checked((int)payload.Length);
        var copy = ArrayPool<byte>.Shared.Rent(length);
        try
        {
            payload.CopyTo(copy);
            return Decode(copy.AsSpan(0, length));
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(copy);
        }
    }

    /// <summary>Decodes a <c>PeerBatch</c>; every reply's payload is copied out of <paramref name="data"/>.</summary>
    /// <exception cref="InvalidDataException">The bytes are not a well-formed batch.</exception>
    public static ReplyBatch Decode(ReadOnlySpan<byte> data)
    {
        var batch = new ReplyBatch(CountEnvelopes(data));
        var reader = new WireReader(data);
        string? lastType = null;
        string? lastSource = null;
        while (!reader.End)
        {
            switch (reader.ReadKey())
            {
                case (1, 2):
                    batch.Replies.Add(DecodeEnvelope(reader.ReadLengthDelimited(), ref lastType, ref lastSource));
                    break;
                case (2, 0):
                    batch.Heartbeat = reader.ReadVarint() != 0;
                    break;
                case (_, var wireType):
                    reader.Skip(wireType);
                    break;
            }
        }

        return batch;
    }

    // A first pass over the batch's keys and lengths, so that the list of replies is allocated once, at its size.
    private static int CountEnvelopes(ReadOnlySpan<byte> data)
    {
        var reader = new WireReader(data);
        var count = 0;
        while (!reader.End)
        {
            var (field, wireType) = reader.ReadKey();
            if (field == 1 && wireType == 2)
            {
                count++;
            }

            reader.Skip(wireType);
        }

        return count;
    }

    private static PeerReply DecodeEnvelope(ReadOnlySpan<byte> data, ref string? lastType, ref string? lastSource)
    {
        var reader = new WireReader(data);
        ulong sequence = 0;
        var type = string.Empty;
        var source = string.Empty;
        var payload = ReadOnlyMemory<byte>.Empty;
        var error = string.Empty;
        var forgotten = false;
        while (!reader.End)
        {
            switch (reader.ReadKey())
            {
                case (1, 0):
                    sequence = reader.ReadVarint();
                    break;
                case (2, 2):
                    type = Text(reader.ReadLengthDelimited(), ref lastType);
                    break;
                case (3, 2):
                    source = Text(reader.ReadLengthDelimited(), ref lastSource);
                    break;
                case (4, 2):
                    var bytes = reader.ReadLengthDelimited();
                    payload = bytes.IsEmpty ? ReadOnlyMemory<byte>.Empty : bytes.ToArray();
                    break;
                case (5, 2):
                    error = Utf8.GetString(reader.ReadLengthDelimited());
                    break;
                case (6, 0):
                    forgotten = reader.ReadVarint() != 0;
                    break;
                case (_, var wireType):
                    reader.Skip(wireType);
                    break;
            }
        }

        return new PeerReply(sequence, type, source, payload, error, forgotten);
    }

    // A batch's replies mostly repeat one type and one source: the string decoded last is reused while the bytes match it.
    private static string Text(ReadOnlySpan<byte> utf8, ref string? last)
    {
        if (utf8.IsEmpty)
        {
            return string.Empty;
        }

        if (last is not null && Ascii.Equals(utf8, last))
        {
            return last;
        }

        return last = Utf8.GetString(utf8);
    }

    /// <summary>Gets the bytes a send's trace context adds to its envelope (0 for a span without a W3C id).</summary>
    public static int TraceContextSize(Activity span)
        => TraceParent(span) is { } parent ? FieldLength(parent.Length) + FieldLength(Utf8Length(span.TraceStateString ?? string.Empty)) : 0;

    // The span's W3C "traceparent" (its id, in the W3C format), or null when it has another format.
    private static string? TraceParent(Activity? span) => span is { IdFormat: ActivityIdFormat.W3C } ? span.Id : null;

    private static int Utf8Length(string text) => text.Length == 0 ? 0 : Utf8.GetByteCount(text);

    private static int EnvelopeLength(PendingSend send, int typeBytes, int sourceBytes)
    {
        var payload = send.Message.Payload;
        return (send.Sequence == 0 ? 0 : 1 + VarintSize(send.Sequence))
            + FieldLength(typeBytes)
            + FieldLength(sourceBytes)
            + FieldLength(payload.Length)
            + (send.Span is null ? 0 : TraceContextSize(send.Span));
    }

    // A length-delimited field: left out when empty, else its key, its length and its bytes.
    private static int FieldLength(int bytes) => bytes == 0 ? 0 : 1 + VarintSize((uint)bytes) + bytes;

    private static int WriteEnvelope(Span<byte> span, PendingSend send, int typeBytes, int sourceBytes)
    {
        var message = send.Message;
        var written = 0;
        if (send.Sequence != 0)
        {
            span[written++] = SequenceKey;
            written += WriteVarint(span[written..], send.Sequence);
        }

        written += WriteString(span[written..], TypeKey, message.Type, typeBytes);
        written += WriteString(span[written..], SourceKey, message.Source, sourceBytes);
        if (!message.Payload.IsEmpty)
        {
            span[written++] = PayloadKey;
            written += WriteVarint(span[written..], (uint)message.Payload.Length);
            message.Payload.Span.CopyTo(span[written..]);
            written += message.Payload.Length;
        }

        if (TraceParent(send.Span) is { } parent)
        {
            var state = send.Span!.TraceStateString ?? string.Empty;
            written += WriteString(span[written..], TraceParentKey, parent, parent.Length);
            written += WriteString(span[written..], TraceStateKey, state, Utf8Length(state));
        }

        return written;
    }

    private static int WriteString(Span<byte> span, byte key, string text, int bytes)
    {
        if (bytes == 0)
        {
            return 0;
        }

        span[0] = key;
        var written = 1 + WriteVarint(span[1..], (uint)bytes);
        return written + Utf8.GetBytes(text, span[written..]);
    }

    private static int WriteVarint(Span<byte> span, ulong value)
    {
        var written = 0;
        while (value >= 0x80)
        {
            span[written++] = (byte)(value | 0x80);
            value >>= 7;
        }

        span[written++] = (byte)value;
        return written;
    }

    private static int VarintSize(ulong value)
    {
        var size = 1;
        while (value >= 0x80)
        {
            value >>= 7;
            size++;
        }

        return size;
    }
}
