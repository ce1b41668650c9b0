using Concurrency.Messaging.Grpc.Protocol;
using Grpc.Core;

namespace Concurrency.Messaging.Grpc;

/// <summary>
/// The one way a stream writes its response: every write, the greeting included, takes a token that fires when the write
/// made no progress for <see cref="PeerServerOptions.WriteTimeout"/> (a client that does not read its replies), or when a
/// newer stream of the same session superseded this one (its client moved on). Either way the HTTP/2 stream is reset:
/// a write cut short leaves the response unfinished, and the stream, with its connection, must not wait for a client that
/// does not read. (Kestrel 10 with Grpc.AspNetCore 2.85 already lets go of a stream whose write was cancelled; the reset
/// says so here rather than rest on that.) The caller sees the write fail as when the client goes away
/// (<c>PeerStreamWriter.WriterGone</c>): the stream ends and its replies stay remembered in the session.
/// </summary>
/// <remarks>
/// The host stopping does not cancel writes: the replies already made are written first, each within the write timeout.
/// One writer at a time (the lock of the stream's <see cref="PeerStreamWriter"/>, or the reader before the stream's loops start).
/// </remarks>
internal sealed class PeerResponseWriter : IDisposable
{
    private readonly IServerStreamWriter<PeerBatch> _response;
    private readonly Action _reset;

    // Fires on a write's timeout or on supersession: cancelled on a timer thread or the superseding stream's, read by the writer.
    private readonly CancellationTokenSource _cancel = new();
    private readonly CancellationTokenRegistration _superseded;

    // Armed for the write in flight, disarmed after it, by the one writer.
    private readonly PeerDeadline _deadline;

    // The reader's deadline, touched as each write begins: a client taking replies is not idle. Null in tests without one.
    private readonly PeerDeadline? _activity;

    public PeerResponseWriter(IServerStreamWriter<PeerBatch> response, Action reset, PeerServerOptions options, CancellationToken stop, CancellationToken hostStopping, PeerDeadline? activity = null)
    {
        _response = response;
        _reset = reset;
        _activity = activity;
        _deadline = new PeerDeadline(options.TimeProvider, options.WriteTimeout, _cancel);

        // The stream's stop fires when a newer stream supersedes it, the client resets it, or the host stops; only the
        // last lets the replies already made go out.
        _superseded = stop.UnsafeRegister(
            static (state, token) =>
            {
                var (writer, hostStopping) = ((PeerResponseWriter, CancellationToken))state!;
                if (!hostStopping.IsCancellationRequested)
                {
                    // Not inline: a newer stream's thread (PeerSession.Supersede) should not run this stream's ending.
                    // The registration goes before the source in Dispose, so the source is not disposed here.
                    _ = writer._cancel.CancelAsync();
                }
            },
            (this, hostStopping));
    }

    /// <summary>
    /// Writes one batch, or throws: the transport's error, or, with the stream reset, the cancellation. A write that
    /// finishes just as its deadline fires is let through; the next one fails at once.
    /// </summary>
    public async ValueTask WriteAsync(PeerBatch batch)
    {
        var token = _cancel.Token;
        _activity?.Touch();
        _deadline.Arm();
        try
        {
            await _response.WriteAsync(batch, token).ConfigureAwait(false);
        }
        catch (Exception) when (token.IsCancellationRequested)
        {
            // Cut short (whatever gRPC made of the cancellation): the response is unfinished, so the stream is reset.
            _reset();
            throw;
        }
        finally
        {
            _deadline.Disarm();
        }
    }

    /// <summary>After the last write: the timer and the registration go; a late cancellation finds nothing to cut.</summary>
    public void Dispose()
    {
        _deadline.Dispose();
        _superseded.Dispose();
        _cancel.Dispose();
    }
}
