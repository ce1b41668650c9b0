using System.Threading.Channels;
using Concurrency.Messaging.Grpc.Protocol;
using Outgoing = Concurrency.Messaging.Grpc.PeerStreamWriter.Outgoing;

namespace Concurrency.Messaging.Grpc;

/// <summary>
/// One stream on the server. The reader (<see cref="PeerService"/>) hands each request batch to <see cref="AcceptAsync"/>:
/// when nothing is queued or being answered, and the handler answers at once, the batch is answered right there, which
/// saves a thread hop per round trip; otherwise it is queued for the answer loop, and batches are answered in arrival
/// order either way. An answer made inline is written inline too when the write loop has nothing queued (a second hop
/// saved); otherwise the write loop writes it (the write side is <see cref="PeerStreamWriter"/>, with its own lock and
/// reply queue), and replies go out in the order they were made. Both queues are bounded
/// (<see cref="PeerServerOptions.MaxQueuedBatches"/>): when the handler is behind, or the client does not read its
/// replies, the reader waits for room (or for its inline write) and so stops reading, and HTTP/2 flow control holds the
/// client back. A request batch whose replies fill more than one reply batch queues each full one as it is made, waiting
/// for room before it handles the next request, so that one stream holds at most MaxQueuedBatches + 2 reply batches
/// however much one request batch asks for. While anything waits for room a timer writes a heartbeat now and then, so
/// that a well-behaved client under back-pressure still reads something and does not take the stream for half-open.
/// </summary>
internal sealed class PeerStream
{
    private static readonly PeerBatch HeartbeatReply = new() { Heartbeat = true };

    private readonly PeerServerState _state;
    private readonly PeerSession _session;
    private readonly CancellationToken _stop;

    // The last reply batch of the batch being answered (at most one: the full ones before it were queued as they were
    // made), queued or written inline once the session's gate is let go. Used by one answer at a time: the reader's inline
    // answer and the answer loop never run together (see _looping).
    private readonly List<Outgoing> _answers = [];
    private readonly Channel<PeerBatch> _work;
    private readonly PeerStreamWriter _writer;
    private readonly ITimer _pausedHeartbeats;
    private readonly Task _answering;

    // How many waits for room in _work or the writer's queue are under way (the reader's, the answer loop's); Interlocked.
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
        _stop = stop.Token;
        _work = Channel.CreateBounded<PeerBatch>(new BoundedChannelOptions(state.Options.MaxQueuedBatches) { SingleReader = true, SingleWriter = true });
        _writer = new PeerStreamWriter(state, responseStream, stop);
        var interval = state.Options.PausedHeartbeatInterval;
        _pausedHeartbeats = TimeProvider.System.CreateTimer(static stream => ((PeerStream)stream!).HeartbeatIfPaused(), this, interval, interval);
        _answering = AnswerLoopAsync();
    }

    /// <summary>The greeting the client's handshake waits for, written before the write loop starts.</summary>
    public static PeerBatch Greeting => HeartbeatReply;

    /// <summary>
    /// Reader only: a heartbeat is answered at once, ahead of any queued work, if there is room for it; with the reply
    /// queue full the client is not reading, and an answer it would not read is no use.
    /// </summary>
    public void Heartbeat() => _writer.TryQueue(new Outgoing(HeartbeatReply, 8));

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
            try
            {
                await _writer.CompleteAsync().ConfigureAwait(false);
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
            _writer.TryQueue(new Outgoing(HeartbeatReply, 8));
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
        if (_writer.TryQueue(outgoing))
        {
            return true;
        }

        try
        {
            await WaitForRoomAsync(_writer.QueueAsync(outgoing)).ConfigureAwait(false);
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
            if (inline && await _writer.TryWriteInlineAsync(_answers).ConfigureAwait(false))
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
                var pending = HandlerCall.TooLarge(_state, request) ?? HandlerCall.Invoke(_state, request, _stop);
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

            var size = HandlerCall.EnvelopeSize(answer);
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
}
