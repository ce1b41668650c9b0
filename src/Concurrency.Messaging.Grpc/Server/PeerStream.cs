using System.Threading.Channels;
using Concurrency.Messaging.Grpc.Protocol;
using Google.Protobuf;
using Grpc.Core;

namespace Concurrency.Messaging.Grpc;

/// <summary>
/// One stream on the server. The reader (<see cref="PeerService"/>) hands each request batch to <see cref="AcceptAsync"/>:
/// when nothing is queued or being answered, and the handler answers at once, the batch is answered right there, which
/// saves a thread hop per round trip; otherwise it is queued for the answer loop, and batches are answered in arrival
/// order either way. An answer made inline is written inline too when the write loop has nothing queued (a second hop
/// saved); otherwise the write loop writes it, merging queued reply batches into one write. One writer at a time holds
/// the write lock, and replies go out in the order they were made. Both queues are bounded
/// (<see cref="PeerServerOptions.MaxQueuedBatches"/>): when the handler is behind, or the client does not read its
/// replies, the reader waits for room (or for its inline write) and so stops reading, and HTTP/2 flow control holds the
/// client back. A request batch whose replies fill more than one reply batch queues each full one as it is made, waiting
/// for room before it handles the next request, so that one stream holds at most MaxQueuedBatches + 2 reply batches
/// however much one request batch asks for. While anything waits for room a timer writes a heartbeat now and then, so
/// that a well-behaved client under back-pressure still reads something and does not take the stream for half-open.
/// </summary>
[System.Diagnostics.CodeAnalysis.SuppressMessage("Design", "CA1001", Justification = "The write lock is never asked for a wait handle, so it holds nothing to dispose.")]
internal sealed class PeerStream
{
    private static readonly PeerBatch HeartbeatReply = new() { Heartbeat = true };

    private readonly PeerServerState _state;
    private readonly PeerSession _session;
    private readonly CancellationTokenSource _stopSource;
    private readonly CancellationToken _stop;

    // The last reply batch of the batch being answered (at most one: the full ones before it were queued as they were
    // made), queued or written inline once the session's gate is let go. Used by one answer at a time: the reader's inline
    // answer and the answer loop never run together (see _looping).
    private readonly List<Outgoing> _answers = [];
    private readonly Channel<PeerBatch> _work;
    private readonly Channel<Outgoing> _replies;
    private readonly PeerResponseWriter _responseStream;

    // Held by whoever writes the response stream: the write loop while it empties _replies, or the reader writing its
    // inline answer when _replies is empty. The loop takes it before it reads anything out of _replies, so an inline
    // write never overtakes a reply queued before it.
    private readonly SemaphoreSlim _writeLock = new(1, 1);
    private readonly ITimer _pausedHeartbeats;
    private readonly Task _answering;
    private readonly Task _writing;

    // How many waits for room in _work or _replies are under way (the reader's, the answer loop's); Interlocked.
    private int _waiting;

    // Batches queued and not yet taken by the answer loop: the reader adds before it queues, the loop takes off after it
    // dequeues (the unbounded single-reader channel keeps no count of its own).
    private int _queued;

    // 1 while the answer loop answers queued batches. Written by the loop before it takes a batch and after the queue ran
    // dry; the reader reads _queued first and this second, so it never answers beside the loop.
    private int _looping;

    // Set once a handler did not answer at once, by whichever answered (the reader inline or the loop, never both at
    // once), and never cleared: from then on every batch goes through the loop. Not ordered with _queued and _looping
    // (the reader reads it first): a reader that misses the loop's write answers one more batch inline, which is safe,
    // since it answers inline only when the loop is idle with nothing queued; it waits for that answer as for any.
    private bool _handlerWaits;

    public PeerStream(PeerServerState state, PeerSession session, PeerResponseWriter responseStream, CancellationTokenSource stop)
    {
        _state = state;
        _session = session;
        _stopSource = stop;
        _stop = stop.Token;
        var queued = state.Options.MaxQueuedBatches;
        _work = Channel.CreateBounded<PeerBatch>(new BoundedChannelOptions(queued) { SingleReader = true, SingleWriter = true });
        _replies = Channel.CreateBounded<Outgoing>(new BoundedChannelOptions(queued) { SingleReader = true });
        var interval = state.Options.PausedHeartbeatInterval;
        _pausedHeartbeats = TimeProvider.System.CreateTimer(static stream => ((PeerStream)stream!).HeartbeatIfPaused(), this, interval, interval);
        _responseStream = responseStream;
        _writing = WriteLoopAsync();
        _answering = AnswerLoopAsync();
    }

    /// <summary>The greeting the client's handshake waits for, written before the write loop starts.</summary>
    public static PeerBatch Greeting => HeartbeatReply;

    /// <summary>
    /// Reader only: a heartbeat is answered at once, ahead of any queued work, if there is room for it; with the reply
    /// queue full the client is not reading, and an answer it would not read is no use.
    /// </summary>
    public void Heartbeat() => _replies.Writer.TryWrite(new Outgoing(HeartbeatReply, 8));

    /// <summary>Reader only: answers the batch now, or queues it (see the class summary).</summary>
    public ValueTask AcceptAsync(PeerBatch batch)
    {
        if (!_handlerWaits && Volatile.Read(ref _queued) == 0 && Volatile.Read(ref _looping) == 0)
        {
            var answering = AnswerAsync(batch, inline: true);
            if (answering.IsCompletedSuccessfully)
            {
                return answering;
            }

            // The reader waits for this answer (a handler, or a write the client is slow to take) and reads nothing
            // meanwhile: counted, so that heartbeats go on.
            return WaitForRoomAsync(answering);
        }

        Interlocked.Increment(ref _queued);
        return _work.Writer.TryWrite(batch) ? ValueTask.CompletedTask : WaitForRoomAsync(_work.Writer.WriteAsync(batch, _stop));
    }

    /// <summary>Reader only, after its last batch: lets the loops finish what is queued, then returns when the last reply is written (or the client is gone).</summary>
    public async Task CloseAsync()
    {
        _work.Writer.TryComplete();
        try
        {
            await _answering.ConfigureAwait(false);
        }
        finally
        {
            _replies.Writer.TryComplete();
            try
            {
                await _writing.ConfigureAwait(false);
            }
            finally
            {
                await _pausedHeartbeats.DisposeAsync().ConfigureAwait(false);
            }
        }
    }

    // The timer: while a wait for room is under way, a heartbeat, if the reply queue has room for one.
    private void HeartbeatIfPaused()
    {
        if (Volatile.Read(ref _waiting) > 0)
        {
            _replies.Writer.TryWrite(new Outgoing(HeartbeatReply, 8));
        }
    }

    // Counts a wait for room in a queue (or the reader's wait for a slow answer), for the timer that writes heartbeats meanwhile.
    private async ValueTask WaitForRoomAsync(ValueTask wait)
    {
        Interlocked.Increment(ref _waiting);
        try
        {
            await wait.ConfigureAwait(false);
        }
        finally
        {
            Interlocked.Decrement(ref _waiting);
        }
    }

    // Queues a reply batch for the writer, waiting for room. False when the writer is gone (the client went away): the
    // replies stay remembered in the session for the client's next stream.
    private async ValueTask<bool> QueueReplyAsync(Outgoing outgoing)
    {
        if (_replies.Writer.TryWrite(outgoing))
        {
            return true;
        }

        try
        {
            await WaitForRoomAsync(_replies.Writer.WriteAsync(outgoing, _stop)).ConfigureAwait(false);
            return true;
        }
        catch (ChannelClosedException)
        {
            return false;
        }
    }

    private async Task AnswerLoopAsync()
    {
        await Task.Yield();
        try
        {
            while (await _work.Reader.WaitToReadAsync(_stop).ConfigureAwait(false))
            {
                Volatile.Write(ref _looping, 1);
                while (_work.Reader.TryRead(out var batch))
                {
                    Interlocked.Decrement(ref _queued);
                    await AnswerAsync(batch, inline: false).ConfigureAwait(false);
                }

                Volatile.Write(ref _looping, 0);
            }
        }
        catch (OperationCanceledException) when (_stop.IsCancellationRequested)
        {
            // Stopping, or the client went away: what was not answered, the client writes again on its next stream.
        }
    }

    private async ValueTask AnswerAsync(PeerBatch batch, bool inline)
    {
        await _session.Gate.WaitAsync(_stop).ConfigureAwait(false);
        try
        {
            _session.Acknowledge(batch.Acknowledged);
            await ReplyAsync(batch, _session).ConfigureAwait(false);
        }
        finally
        {
            _session.Gate.Release();
        }

        // The last reply batch is queued after the gate is let go: the common small answer, written inline, never
        // waits for the writer under the gate.
        System.Diagnostics.Debug.Assert(_answers.Count <= 1, "Full reply batches were queued as they were made.");
        try
        {
            if (inline && await TryWriteInlineAsync().ConfigureAwait(false))
            {
                return;
            }

            foreach (var outgoing in _answers)
            {
                if (!await QueueReplyAsync(outgoing).ConfigureAwait(false))
                {
                    return;
                }
            }
        }
        finally
        {
            _answers.Clear();
        }
    }

    // The reader, answering inline: writes the answers itself when the write loop is idle and nothing is queued for it,
    // which saves the hand-off to the loop (a thread-pool wake-up per batch). False, having written nothing, when the
    // loop holds the write lock or has replies queued: the caller queues behind them.
    private async ValueTask<bool> TryWriteInlineAsync()
    {
        if (!_writeLock.Wait(0))
        {
            return false;
        }

        try
        {
            if (_stop.IsCancellationRequested)
            {
                return true; // a write failed (WriterGone) or the stream is ending: write nothing after it; the replies are remembered
            }

            if (_replies.Reader.Count > 0)
            {
                return false;
            }

            foreach (var outgoing in _answers)
            {
                await WriteBatchAsync(outgoing.Batch).ConfigureAwait(false);
            }
        }
#pragma warning disable CA1031 // The client is gone; its next stream gets the remembered replies.
        catch (Exception)
#pragma warning restore CA1031
        {
            WriterGone();
        }
        finally
        {
            _writeLock.Release();
        }

        return true;
    }

    // Under the session's gate: handles or recalls each request, queueing each full reply batch for the writer as it is
    // made (waiting for room while holding the gate: a wait that the session's next stream ends, since Supersede cancels
    // _stop), and leaves the last, partial one in _answers for the caller to write inline or queue once the gate is let go.
    private async ValueTask ReplyAsync(PeerBatch batch, PeerSession session)
    {
        var requests = batch.Envelopes;
        var reply = NewReply(requests.Count);
        var bytes = 0;
        var handled = 0;
        for (var index = 0; index < requests.Count; index++)
        {
            var request = requests[index];
            Envelope? answer;
            var resend = request.Sequence <= session.HandledThrough;
            if (resend)
            {
                // A resend: answer from memory; if the client already acknowledged it, it needs nothing.
                _state.CountDuplicate();
                answer = session.Recall(request.Sequence);
                if (answer is null)
                {
                    continue;
                }

                if (answer.Forgotten)
                {
                    _state.Refused("forgotten", answer.Error, stream: false);
                }
            }
            else
            {
                // The handler's usual answer is synchronous (echo): no await, no state machine, per message.
                handled++;
                var span = PeerTracing.StartHandle(request);
                var started = _state.Meter.StartRequest();
                var pending = TooLarge(request) ?? Invoke(request, _stop);
                if (pending.IsCompletedSuccessfully)
                {
                    answer = pending.Result;
                }
                else
                {
                    _handlerWaits = true;
                    try
                    {
                        answer = await pending.ConfigureAwait(false);
                    }
                    catch (OperationCanceledException)
                    {
                        // The stream or the server stopped under the handler: its span and duration end now, not never.
                        PeerTracing.CancelHandle(span);
                        _state.Meter.EndRequest(started, PeerMeter.Cancelled);
                        throw;
                    }
                }

                // Guarded here: while nobody traces or measures, the usual answer pays two tests, not two calls.
                if (span is not null)
                {
                    PeerTracing.EndHandle(span, answer);
                }

                if (started != 0)
                {
                    _state.Meter.EndRequest(started, answer.Error.Length > 0 ? PeerMeter.Failed : null);
                }

                session.HandledThrough = request.Sequence;
            }

            var size = EnvelopeSize(answer);
            if (!resend)
            {
                session.Remember(answer);
            }

            if (reply.Envelopes.Count > 0 && (reply.Envelopes.Count == _state.Options.MaxBatchCount || bytes + size > _state.Options.MaxBatchBytes))
            {
                // A full reply batch leaves for the writer now, waiting for room in the reply queue: back-pressure inside
                // the batch, so that a stream holds a few reply batches, not every reply to a request batch of 1,024.
                // Counted first: the wait may end the answer (the stream stops).
                _state.CountHandled(handled);
                handled = 0;
                if (!await QueueReplyAsync(new Outgoing(reply, bytes)).ConfigureAwait(false))
                {
                    return; // the client is gone: what is made is remembered; the rest, not handled, it writes again on its next stream
                }

                reply = NewReply(requests.Count - index); // this request and the ones after it
                bytes = 0;
            }

            reply.Envelopes.Add(answer);
            bytes += size;
        }

        _state.CountHandled(handled);
        if (reply.Envelopes.Count > 0)
        {
            _answers.Add(new Outgoing(reply, bytes));
        }
    }

    // A reply batch sized for the replies still to come (up to a batch's most), so that its list does not grow step by step.
    private PeerBatch NewReply(int replies)
    {
        var reply = new PeerBatch();
        reply.Envelopes.Capacity = Math.Min(replies, _state.Options.MaxBatchCount);
        return reply;
    }

    // An upper bound of the envelope's bytes on the wire, without encoding its strings twice.
    private static int EnvelopeSize(Envelope envelope) => 32 + ((envelope.Type.Length + envelope.Source.Length + envelope.Error.Length) * 3) + envelope.Payload.Length;

    // A request over the limit fails before its handler runs, so that a handler with side effects never runs for it.
    private ValueTask<Envelope>? TooLarge(Envelope request)
    {
        // The upper bound first (no UTF-8 count per message on the usual path); the exact size only near the limit.
        if (EnvelopeSize(request) <= _state.Options.MaxMessageBytes)
        {
            return null;
        }

        var size = new PeerMessage(request.Type, request.Source, request.Payload.Memory).WireSize;
        if (size <= _state.Options.MaxMessageBytes)
        {
            return null;
        }

        _state.CountFailed();
        var refused = Failed(request, $"The request takes {size:N0} bytes; the server's limit (PeerServerOptions.MaxMessageBytes) is {_state.Options.MaxMessageBytes:N0}. It was not handled.");
        _state.Refused("request_size", refused.Error, stream: false);
        return new ValueTask<Envelope>(refused);
    }

    private ValueTask<Envelope> Invoke(Envelope request, CancellationToken stop)
    {
        ValueTask<PeerMessage> pending;
        try
        {
            pending = _state.Options.Handler(new PeerMessage(request.Type, request.Source, request.Payload.Memory), stop);
        }
#pragma warning disable CA1031 // A handler that throws fails its own request only; the caller gets the error text.
        catch (Exception error)
#pragma warning restore CA1031
        {
            return new ValueTask<Envelope>(Failed(request, error));
        }

        return pending.IsCompletedSuccessfully
            ? new ValueTask<Envelope>(Answer(request, pending.Result))
            : AwaitAsync(request, pending, stop);
    }

    private async ValueTask<Envelope> AwaitAsync(Envelope request, ValueTask<PeerMessage> pending, CancellationToken stop)
    {
        try
        {
            return Answer(request, await pending.ConfigureAwait(false));
        }
        catch (OperationCanceledException) when (stop.IsCancellationRequested)
        {
            throw;
        }
#pragma warning disable CA1031 // A handler that throws fails its own request only; the caller gets the error text.
        catch (Exception error)
#pragma warning restore CA1031
        {
            return Failed(request, error);
        }
    }

    private Envelope Answer(Envelope request, PeerMessage answer)
    {
        // An upper bound first (at most 3 UTF-8 bytes a char, 5 a length, 1 a key), as for requests: the exact size, which
        // counts the UTF-8 of both strings, only near the limit.
        var bound = (((answer.Type?.Length ?? 0) + (answer.Source?.Length ?? 0)) * 3) + answer.Payload.Length + 18;
        var size = bound <= _state.Options.MaxMessageBytes ? bound : answer.WireSize;
        if (size > _state.Options.MaxMessageBytes)
        {
            _state.CountFailed();
            var refused = Failed(request, $"The reply takes {size:N0} bytes; the server's limit (PeerServerOptions.MaxMessageBytes) is {_state.Options.MaxMessageBytes:N0}.");
            _state.Refused("reply_size", refused.Error, stream: false);
            return refused;
        }

        // The request becomes its own reply, which saves an envelope a message: nothing else holds it (the handler, done
        // now, saw its fields, not it), and it was read without unknown fields (PeerService), so every field a reply may
        // carry is set here. An answer that hands back the request's own bytes (an echo) keeps its byte string.
        request.Type = answer.Type ?? string.Empty;
        request.Source = answer.Source ?? string.Empty;
        if (!answer.Payload.Equals(request.Payload.Memory))
        {
            request.Payload = UnsafeByteOperations.UnsafeWrap(answer.Payload);
        }

        request.Error = string.Empty;
        request.Forgotten = false;
        request.TraceParent = string.Empty;
        request.TraceState = string.Empty;
        return request;
    }

    private Envelope Failed(Envelope request, Exception error)
    {
        _state.CountFailed();
        var type = request.Type.Length <= 100 ? request.Type : request.Type[..100] + "…";
        if (_state.Options.EnableDetailedErrors)
        {
            return Failed(request, $"The server's handler failed on '{type}': {error.GetType().Name}: {error.Message}");
        }

        // The exception stays on this side: its message is the server's, not the client's to read.
        PeerServiceLog.HandlerFailed(_state.Logger, type, error);
        return Failed(request, $"The server's handler failed on '{type}'.");
    }

    // A failure carries no type and quotes at most the start of the request's: its size stays small whatever was sent.
    private static Envelope Failed(Envelope request, string error) => new() { Sequence = request.Sequence, Error = error };

    // Writes what is queued, merging it up to the batch limits into one write, under the write lock. A failed write (the
    // client went away, did not read within the write timeout, or moved to a newer stream) ends the loop; the replies are
    // remembered in the session for the client's next stream.
    private async Task WriteLoopAsync()
    {
        await Task.Yield();
        var replies = _replies.Reader;
        try
        {
            while (await replies.WaitToReadAsync().ConfigureAwait(false))
            {
                await _writeLock.WaitAsync().ConfigureAwait(false);
                try
                {
                    while (replies.TryRead(out var outgoing))
                    {
                        var batch = outgoing.Batch;
                        if (batch.Envelopes.Count > 0 && batch.Envelopes.Count < _state.Options.MaxBatchCount)
                        {
                            Merge(outgoing, replies);
                        }

                        await WriteBatchAsync(batch).ConfigureAwait(false);
                    }
                }
                finally
                {
                    _writeLock.Release();
                }
            }
        }
#pragma warning disable CA1031 // The client is gone; its next stream gets the remembered replies.
        catch (Exception)
#pragma warning restore CA1031
        {
            WriterGone();
            while (replies.TryRead(out _))
            {
            }
        }
    }

    // Under the write lock.
    private async ValueTask WriteBatchAsync(PeerBatch batch)
    {
        await _responseStream.WriteAsync(batch).ConfigureAwait(false);
        _state.Meter.Sent(batch.Envelopes.Count);
    }

    // A write failed: the client is gone, or was cut off (see PeerResponseWriter). The queue is closed first, so that a
    // wait for room in it ends instead of waiting for a writer that is gone; and the stream is stopped, so that the reader
    // and the answer loop do not go on handling what nobody will read.
    private void WriterGone()
    {
        _replies.Writer.TryComplete();
        try
        {
            _stopSource.Cancel();
        }
        catch (ObjectDisposedException)
        {
            // The call is over already.
        }
    }

    // Adds the queued batches that fit into the first (which this stream made, so it may be changed).
    private void Merge(Outgoing first, ChannelReader<Outgoing> replies)
    {
        var bytes = first.Bytes;
        while (replies.TryPeek(out var next)
            && first.Batch.Envelopes.Count + next.Batch.Envelopes.Count <= _state.Options.MaxBatchCount
            && bytes + next.Bytes <= _state.Options.MaxBatchBytes)
        {
            replies.TryRead(out _);
            first.Batch.Envelopes.AddRange(next.Batch.Envelopes);
            first.Batch.Heartbeat |= next.Batch.Heartbeat;
            bytes += next.Bytes;
        }
    }

    /// <summary>A reply batch on its way to the writer, with an upper bound of its bytes.</summary>
    private readonly record struct Outgoing(PeerBatch Batch, int Bytes);
}
