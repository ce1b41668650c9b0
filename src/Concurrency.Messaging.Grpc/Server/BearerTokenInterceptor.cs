using System.Security.Cryptography;
using System.Text;
using Grpc.Core;
using Grpc.Core.Interceptors;

namespace Concurrency.Messaging.Grpc;

/// <summary>Refuses, with gRPC status <c>Unauthenticated</c>, every stream that does not carry the server's bearer token.</summary>
internal sealed class BearerTokenInterceptor(string token) : Interceptor
{
    private readonly byte[] _expected = Encoding.UTF8.GetBytes(PeerHeaders.BearerPrefix + token);

    public override Task DuplexStreamingServerHandler<TRequest, TResponse>(
        IAsyncStreamReader<TRequest> requestStream,
        IServerStreamWriter<TResponse> responseStream,
        ServerCallContext context,
        DuplexStreamingServerMethod<TRequest, TResponse> continuation)
    {
        Check(context);
        return continuation(requestStream, responseStream, context);
    }

    private void Check(ServerCallContext context)
    {
        var presented = context.RequestHeaders.GetValue(PeerHeaders.Authorization);
        if (presented is null || !CryptographicOperations.FixedTimeEquals(Encoding.UTF8.GetBytes(presented), _expected))
        {
            PeerMeter.Refused("unauthenticated");
            throw new RpcException(new Status(StatusCode.Unauthenticated, presented is null
                ? "This peer asks for a bearer token (header 'authorization: Bearer TOKEN') and the stream carried none."
                : "The bearer token is not the one this peer accepts."));
        }
    }
}
