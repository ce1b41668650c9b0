using Grpc.Core;
using Grpc.Net.Client;

namespace Concurrency.Messaging.Grpc;

/// <summary>
/// How the <see cref="PeerPump"/> opens a stream: on its HTTP/2 channel, with the bearer header and the session id the
/// server issued on an earlier stream (so that it de-duplicates resends), waiting for the server's greeting as the
/// handshake. The channel is replaced after a half-open stream, because the old connection would carry the next stream
/// into the same black hole.
/// </summary>
/// <remarks>Pump only: every field is read and written by the pump, one call at a time; <see cref="Dispose"/> comes after the pump has ended.</remarks>
internal sealed class PeerConnector : IDisposable
{
    private readonly Uri _address;
    private readonly PeerClientOptions _options;

    // The bearer header, or null; sent on every stream.
    private readonly string? _authorization;

    private GrpcChannel _channel;
    private CallInvoker _invoker;

    // The session id the server issued on the first stream, presented on later ones.
    private string? _session;

    public PeerConnector(Uri address, PeerClientOptions options)
    {
        _address = address;
        _options = options;
        _authorization = options.BearerToken is { } token ? PeerHeaders.BearerPrefix + token : null;
        _channel = PeerChannel.Create(address, options);
        _invoker = _channel.CreateCallInvoker();
    }

    /// <summary>Opens a stream and waits for the server's greeting (within <see cref="PeerClientOptions.ConnectTimeout"/>); <paramref name="stop"/> ends it.</summary>
    public async Task<PeerConnection> OpenAsync(CancellationToken stop)
    {
        var broken = CancellationTokenSource.CreateLinkedTokenSource(stop);
        AsyncDuplexStreamingCall<OutgoingBatch, ReplyBatch> call;
        try
        {
            var headers = new Metadata();
            if (_session is { } session)
            {
                headers.Add(PeerHeaders.Session, session);
            }

            if (_authorization is { } authorization)
            {
                headers.Add(PeerHeaders.Authorization, authorization);
            }

            call = _invoker.AsyncDuplexStreamingCall(PeerWire.Exchange, null, new CallOptions(headers, cancellationToken: broken.Token));
        }
        catch
        {
            broken.Dispose();
            throw;
        }

        var connection = new PeerConnection(call, broken);
        try
        {
            // The server's first batch, a heartbeat sent as soon as it accepts the stream, is the handshake. A refusal (bad
            // token, unknown method) ends the call instead, and the read throws its status.
            var greeting = call.ResponseStream.MoveNext(broken.Token);

            // Given up on (timeout, disposal), the read faults once the call is disposed: observed here, not left to the finalizer.
            _ = greeting.ContinueWith(static read => _ = read.Exception, CancellationToken.None, TaskContinuationOptions.OnlyOnFaulted | TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
            var greeted = await greeting.WaitAsync(_options.ConnectTimeout, stop).ConfigureAwait(false);
            if (!greeted)
            {
                throw new IOException($"The server at {_address} ended the stream before greeting it.");
            }

            // The headers came before the greeting. A server that did not know the id presented issued a new one (it
            // forgot the session, or restarted): resends on it are handled afresh, as after a restart.
            var issued = (await call.ResponseHeadersAsync.ConfigureAwait(false)).GetValue(PeerHeaders.Session);
            if (issued is not null)
            {
                _session = issued;
            }
        }
        catch (TimeoutException timeout)
        {
            connection.Dispose();
            throw new TimeoutException($"The server at {_address} did not answer within {_options.ConnectTimeout.TotalSeconds:0.###} s.", timeout);
        }
        catch
        {
            connection.Dispose();
            throw;
        }

        connection.MarkRead();
        return connection;
    }

    /// <summary>Replaces the channel (after a half-open stream): the next stream opens on a new HTTP/2 connection.</summary>
    public void ReplaceChannel()
    {
        var old = _channel;
        _channel = PeerChannel.Create(_address, _options);
        _invoker = _channel.CreateCallInvoker();
        old.Dispose();
    }

    public void Dispose() => _channel.Dispose();
}
