using System.Security.Cryptography;
using System.Text;
using Grpc.Core;
using Grpc.Core.Interceptors;

namespace Concurrency.Messaging.Grpc;

/// <summary>
/// Refuses, with gRPC status <c>Unauthenticated</c>, every stream that does not carry a token the server accepts
/// (<see cref="PeerServerOptions.BearerToken"/> or one of <see cref="PeerServerOptions.BearerTokens"/>), and notes the
/// identity its token maps to for <see cref="PeerService"/> (<see cref="IdentityOf"/>); passes every stream, with the one
/// shared identity, when the server asks for no token. One per server (a singleton of its services), on the peer service only.
/// </summary>
internal sealed class BearerTokenInterceptor(PeerServerState state) : Interceptor
{
    /// <summary>The identity of every stream of a server with no token or a single one: they cannot be told apart.</summary>
    public const string SharedIdentity = "";

    // The key of the stream's identity in its call's UserState.
    private static readonly object IdentityKey = new();

    // Each accepted header value with its identity; empty when the server asks for no token. Read-only after construction.
    private readonly (byte[] Header, string Identity)[] _accepted = Accepted(state.Options);

    /// <summary>The identity the interceptor found for this call's token; the shared one when the server asks for no token.</summary>
    public static string IdentityOf(ServerCallContext context)
        => context.UserState.TryGetValue(IdentityKey, out var identity) ? (string)identity : SharedIdentity;

    public override Task DuplexStreamingServerHandler<TRequest, TResponse>(
        IAsyncStreamReader<TRequest> requestStream,
        IServerStreamWriter<TResponse> responseStream,
        ServerCallContext context,
        DuplexStreamingServerMethod<TRequest, TResponse> continuation)
    {
        if (_accepted.Length > 0)
        {
            context.UserState[IdentityKey] = Check(context);
        }

        return continuation(requestStream, responseStream, context);
    }

    private static (byte[] Header, string Identity)[] Accepted(PeerServerOptions options)
    {
        if (options.BearerTokens is { } tokens)
        {
            return [.. tokens.Select(pair => (Encoding.UTF8.GetBytes(PeerHeaders.BearerPrefix + pair.Key), pair.Value))];
        }

        return options.BearerToken is { } token ? [(Encoding.UTF8.GetBytes(PeerHeaders.BearerPrefix + token), SharedIdentity)] : [];
    }

    // Compares the presented header with every accepted one in fixed time, without stopping at a match, so that the time
    // taken says nothing about which token, if any, came close.
    private string Check(ServerCallContext context)
    {
        var presented = context.RequestHeaders.GetValue(PeerHeaders.Authorization);
        string? identity = null;
        if (presented is not null)
        {
            var bytes = Encoding.UTF8.GetBytes(presented);
            foreach (var (header, candidate) in _accepted)
            {
                if (CryptographicOperations.FixedTimeEquals(bytes, header))
                {
                    identity = candidate;
                }
            }
        }

        if (identity is null)
        {
            var refusal = new RpcException(new Status(StatusCode.Unauthenticated, presented is null
                ? "This peer asks for a bearer token (header 'authorization: Bearer TOKEN') and the stream carried none."
                : "The bearer token is not one this peer accepts."));
            state.Refused("unauthenticated", refusal.Status.Detail, stream: true);
            throw refusal;
        }

        return identity;
    }
}
