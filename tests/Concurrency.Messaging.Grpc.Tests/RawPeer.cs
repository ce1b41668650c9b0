using Grpc.Net.Client;

namespace Concurrency.Messaging.Grpc.Tests;

/// <summary>
/// A raw client of the peer protocol, built from the generated code on a channel of its own: the hostile side of a test,
/// which opens streams and numbers their requests as the test chooses (<see cref="RawStream"/>). Disposing it resets
/// every stream it opened (reset, not completed: their sessions stay on the server) and closes the channel; a test that
/// needs a stream gone earlier disposes it itself.
/// </summary>
internal sealed class RawPeer : IDisposable
{
    private readonly GrpcChannel _channel;
    private readonly Peer.PeerClient _client;
    private readonly List<AsyncDuplexStreamingCall<PeerBatch, PeerBatch>> _streams = []; // guarded by itself: a test may open streams from several tasks

    public RawPeer(Uri address, GrpcChannelOptions? options = null)
    {
        _channel = options is null ? GrpcChannel.ForAddress(address) : GrpcChannel.ForAddress(address, options);
        _client = new Peer.PeerClient(_channel);
    }

    /// <summary>Opens a stream and reads nothing: for a test that reads its headers first, or expects it refused.</summary>
    public AsyncDuplexStreamingCall<PeerBatch, PeerBatch> Exchange(Metadata? headers = null)
    {
        var call = _client.Exchange(headers, cancellationToken: TestContext.Current.CancellationToken);
        lock (_streams)
        {
            _streams.Add(call);
        }

        return call;
    }

    /// <summary>Opens a stream and reads the server's greeting: the stream is accepted and ready for requests.</summary>
    public async Task<AsyncDuplexStreamingCall<PeerBatch, PeerBatch>> OpenAsync(Metadata? headers = null)
    {
        var call = Exchange(headers);
        try
        {
            await RawStream.ReadAsync(call);
            return call;
        }
        catch
        {
            call.Dispose();
            throw;
        }
    }

    /// <summary>
    /// Opens a stream that presents <paramref name="session"/>, checks that the server took it up (rather than issuing a
    /// new one), and reads the greeting.
    /// </summary>
    public async Task<AsyncDuplexStreamingCall<PeerBatch, PeerBatch>> ResumeAsync(string session)
    {
        var call = Exchange(new Metadata { { RawStream.SessionHeader, session } });
        try
        {
            Assert.Equal(session, await RawStream.SessionOfAsync(call));
            await RawStream.ReadAsync(call);
            return call;
        }
        catch
        {
            call.Dispose();
            throw;
        }
    }

    public void Dispose()
    {
        lock (_streams)
        {
            _streams.ForEach(call => call.Dispose()); // a stream the test disposed already: disposing again does nothing
        }

        _channel.Dispose();
    }
}
