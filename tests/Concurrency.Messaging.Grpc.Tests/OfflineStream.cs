using Microsoft.Extensions.Logging.Abstractions;

namespace Concurrency.Messaging.Grpc.Tests;

/// <summary>
/// One server stream without a network, made as the server makes one per call: the server's state (sessions, budgets), a
/// session attached for the stream, a response writer over the test's <see cref="IServerStreamWriter{T}"/>, and the
/// <see cref="PeerStream"/>, whose reader's side the test drives directly. Disposed in the reverse order.
/// </summary>
internal sealed class OfflineStream : IDisposable
{
    private readonly PeerResponseWriter _responseWriter;

    public OfflineStream(IServerStreamWriter<PeerBatch> writer, PeerServerOptions? options = null)
    {
        State = new PeerServerState(options ?? new PeerServerOptions(), NullLogger.Instance, CancellationToken.None);
        Session = State.Sessions.Attach(null)!;
        _responseWriter = new PeerResponseWriter(writer, () => { }, State.Options, Stop.Token, CancellationToken.None);
        Stream = new PeerStream(State, Session, _responseWriter, Stop);
    }

    public PeerServerState State { get; }

    public PeerSession Session { get; }

    /// <summary>Gets the stream's stop: cancelled when the stream stops (a failed write stops it).</summary>
    public CancellationTokenSource Stop { get; } = new();

    public PeerStream Stream { get; }

    public void Dispose()
    {
        _responseWriter.Dispose();
        Stop.Dispose();
        State.Dispose();
    }
}
