using Concurrency.Messaging.Grpc.Protocol;
using Google.Protobuf;
using Grpc.Core;

namespace Concurrency.Messaging.Grpc;

/// <summary>
/// <c>Peer/Exchange</c> as the generated <c>Peer.PeerBase</c> binds it, but with requests read without the fields this
/// server does not know (a newer client's, or anyone's padding). A request envelope then holds only fields the server
/// sets when it turns the envelope into its own reply (<see cref="PeerStream"/>), so nothing a client sent comes back
/// unasked. Replies are written as the generated code writes them. Kestrel's gRPC finds <see cref="BindService"/>
/// through the attribute, and binds the override of <see cref="Exchange"/> it declares.
/// </summary>
[BindServiceMethod(typeof(PeerServiceBinding), nameof(BindService))]
internal abstract class PeerServiceBinding
{
    private static readonly MessageParser<PeerBatch> Requests = PeerBatch.Parser.WithDiscardUnknownFields(true);

    private static readonly Marshaller<PeerBatch> Batches = new(
        static (batch, context) =>
        {
            context.SetPayloadLength(batch.CalculateSize());
            batch.WriteTo(context.GetBufferWriter());
            context.Complete();
        },
        static context => Requests.ParseFrom(context.PayloadAsReadOnlySequence()));

    private static readonly Method<PeerBatch, PeerBatch> ExchangeMethod = new(MethodType.DuplexStreaming, Peer.Descriptor.FullName, "Exchange", Batches, Batches);

    /// <summary>The service's descriptor, where gRPC reflection looks for it on the bound type (as on <c>Peer.PeerBase</c>).</summary>
    public static Google.Protobuf.Reflection.ServiceDescriptor Descriptor => Peer.Descriptor;

    public static void BindService(ServiceBinderBase binder, PeerServiceBinding? service)
        => binder.AddMethod(ExchangeMethod, service is null ? null : service.Exchange);

    public abstract Task Exchange(IAsyncStreamReader<PeerBatch> requestStream, IServerStreamWriter<PeerBatch> responseStream, ServerCallContext context);
}
