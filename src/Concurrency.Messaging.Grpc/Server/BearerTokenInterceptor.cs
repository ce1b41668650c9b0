using System.Security.Cryptography;
using System.Text;
using Grpc.Core;
using Grpc.Core.Interceptors;

namespace Concurrency.Messaging.Grpc;

/// <summary>
/// Refuses, with gRPC status <c>Unauthenticated</c>, every stream that does not carry the server's bearer token; passes
/// every stream when the server asks for none. One per server (a singleton of its services), on the peer service only.
/// </summary>
internal sealed class BearerTokenInterceptor(PeerServerState state) : Interceptor
{
    // Null when the server asks for no token.
    private readonly byte[]? _expected = state.Options.BearerToken is { } token ? Encoding.UTF8.GetBytes(PeerHeaders.BearerPrefix + token) : null;

    public override Task DuplexStreamingServerHandler<TRequest, TResponse>(
        IAsyncStreamReader<TRequest> requestStream,
        IServerStreamWriter<TResponse> responseStream,
        ServerCallContext context,
        DuplexStreamingServerMethod<TRequest, TResponse> continuation)
    {
        if (_expected is not null)
        {
            Check(context, _expected);
        }

        return continuation(requestStream, responseStream, context);
    }

    private void Check(ServerCallContext context, byte[] expected)
    {
        var presented = context.RequestHeaders.GetValue(PeerHeaders.Authorization);
        if (presented is null || !CryptographicOperations.FixedTimeEquals(Encoding.UTF8.GetBytes(presented), expected))
        {
            var refusal = new RpcException(new Status(StatusCode.Unauthenticated, presented is null
                ? "This peer asks for a bearer token (header 'authorization: Bearer TOKEN') and the stream carried none."
                : "The bearer token is not the one this peer accepts."));
            state.Refused("unauthenticated", refusal.Status.Detail, stream: true);
            throw refusal;
        }
    }
}
