namespace Concurrency.Messaging.Grpc;

/// <summary>
/// One message between peers, as the seed's events carry it: a type, a source and a payload.
/// </summary>
/// <param name="Type">What the message is (the handler dispatches on it).</param>
/// <param name="Source">Who sent it.</param>
/// <param name="Payload">The bytes it carries. The client does not copy them: keep them unchanged until the send's task has finished.</param>
public readonly record struct PeerMessage(string Type, string Source, ReadOnlyMemory<byte> Payload)
{
    /// <summary>Gets the number of bytes this message takes in an envelope on the wire (without its sequence number).</summary>
    public int WireSize =>
        Google.Protobuf.CodedOutputStream.ComputeStringSize(Type ?? string.Empty) + 1
        + Google.Protobuf.CodedOutputStream.ComputeStringSize(Source ?? string.Empty) + 1
        + Google.Protobuf.CodedOutputStream.ComputeLengthSize(Payload.Length) + Payload.Length + 1;
}
