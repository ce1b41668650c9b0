using Grpc.Core;

namespace Concurrency.Messaging.Grpc;

/// <summary>
/// One stream (gRPC call) of a <see cref="PeerClient"/>, from open until it breaks or closes. The pump is the only writer
/// of <see cref="Call"/>'s request stream; the listener the only reader of its response stream. <see cref="Broken"/>
/// fires when either side fails, when the listener sees the stream end, or when the sweeper finds it read-idle; the
/// pump then drops this connection and opens another.
/// </summary>
internal sealed class PeerConnection : IDisposable
{
    private readonly CancellationTokenSource _broken;

    // Written by the listener on every read; read by the sweeper.
    private long _lastRead;

    // Set by the sweeper when the stream has been read-idle for a heartbeat interval; cleared by the pump when it writes the heartbeat.
    private int _pingDue;

    // Sweeper only: when it last asked for a heartbeat, so that it asks once per interval, not once per tick.
    private long _lastPing;

    // Set once by whoever breaks the stream first (listener, sweeper), read by the pump for its error message.
    private Exception? _error;

    public PeerConnection(AsyncDuplexStreamingCall<OutgoingBatch, ReplyBatch> call, CancellationTokenSource broken)
    {
        Call = call;
        _broken = broken;
        _lastRead = Environment.TickCount64;
    }

    public AsyncDuplexStreamingCall<OutgoingBatch, ReplyBatch> Call { get; }

    /// <summary>Gets a token that fires when the stream is broken (or the client stops).</summary>
    public CancellationToken Broken => _broken.Token;

    /// <summary>Gets or sets the listener's task; set by the pump right after opening.</summary>
    public Task Listener { get; set; } = Task.CompletedTask;

    public long LastRead => Volatile.Read(ref _lastRead);

    /// <summary>Gets or sets whether the sweeper dropped this stream as half-open (set before it breaks the stream).</summary>
    public bool HalfOpen { get; set; }

    public Exception? Error => Volatile.Read(ref _error);

    public void MarkRead() => Volatile.Write(ref _lastRead, Environment.TickCount64);

    /// <summary>Asks the pump for a heartbeat if nothing was read, and none asked for, for <paramref name="interval"/> ms.</summary>
    public bool RequestPingIfQuiet(long now, long interval)
    {
        if (now - Math.Max(LastRead, _lastPing) < interval)
        {
            return false;
        }

        _lastPing = now;
        Volatile.Write(ref _pingDue, 1);
        return true;
    }

    public bool TakePing() => Interlocked.Exchange(ref _pingDue, 0) == 1;

    /// <summary>Marks the stream broken; the first error given is kept.</summary>
    public void Break(Exception error)
    {
        Interlocked.CompareExchange(ref _error, error, null);
        try
        {
            _broken.Cancel();
        }
        catch (ObjectDisposedException)
        {
            // Already disposed by the pump: the stream is gone either way.
        }
    }

    public void Dispose()
    {
        Call.Dispose();
        _broken.Dispose();
    }
}
