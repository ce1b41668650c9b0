using System.Threading.Channels;
using Concurrency.Messaging.Grpc.Protocol;
using Google.Protobuf;
using Grpc.Core;

namespace Concurrency.Messaging.Grpc;

/// <summary>
/// The server side of one stream. Three loops per stream: the reader drains the request stream continuously (so HTTP/2
/// flow control never stalls the client), answers heartbeats at once, and queues batches; the handler loop answers
/// them one at a time, in order, under the session's gate; the writer is the only writer of the response stream and
/// merges queued reply batches into one write. The call returns only after all three are done, and ends early when
/// the host is stopping (the call's own token does not fire on shutdown).
/// </summary>
internal sealed class PeerService(PeerServerState state) : Peer.PeerBase
{
    private static readonly PeerBatch HeartbeatReply = new() { Heartbeat = true };

    public override async Task Exchange(IAsyncStreamReader<PeerBatch> requestStream, IServerStreamWriter<PeerBatch> responseStream, ServerCallContext context)
    {
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(context.CancellationToken, state.Stopping);
        var sessionId = context.RequestHeaders.GetValue(PeerHeaders.Session);
        var session = sessionId is null ? null : state.Sessions.Attach(sessionId);
        var clientClosed = false;
        try
        {
            // The greeting: the client's handshake waits for this first batch. Written before the writer loop starts, so
            // the response stream still has one writer at a time.
            await responseStream.WriteAsync(HeartbeatReply).ConfigureAwait(false);
            var work = Channel.CreateUnbounded<PeerBatch>(new UnboundedChannelOptions { SingleReader = true, SingleWriter = true });
            var replies = Channel.CreateUnbounded<Outgoing>(new UnboundedChannelOptions { SingleReader = true });
            var writer = WriteAsync(replies.Reader, responseStream);
            var handler = HandleAsync(work.Reader, replies.Writer, session, stop.Token);
            try
            {
                while (await requestStream.MoveNext(stop.Token).ConfigureAwait(false))
                {
                    var batch = requestStream.Current;
                    if (batch.Heartbeat)
                    {
                        replies.Writer.TryWrite(new Outgoing(HeartbeatReply, 8));
                    }

                    if (batch.Envelopes.Count > 0 || batch.Acknowledged > 0)
                    {
                        work.Writer.TryWrite(batch);
                    }
                }

                clientClosed = true;
            }
#pragma warning disable CA1031 // A failed read (client reset, host stopping) ends this stream; the client reconnects and resends.
            catch (Exception)
#pragma warning restore CA1031
            {
            }
            finally
            {
                work.Writer.TryComplete();
                await handler.ConfigureAwait(false);
                replies.Writer.TryComplete();
                await writer.ConfigureAwait(false);
            }
        }
        finally
        {
            if (session is not null)
            {
                state.Sessions.Detach(sessionId!, session, clientClosed);
            }
        }
    }

    private async Task HandleAsync(ChannelReader<PeerBatch> work, ChannelWriter<Outgoing> replies, PeerSession? session, CancellationToken stop)
    {
        try
        {
            while (await work.WaitToReadAsync(stop).ConfigureAwait(false))
            {
                while (work.TryRead(out var batch))
                {
                    if (session is null)
                    {
                        await AnswerAsync(batch, replies, null, stop).ConfigureAwait(false);
                        continue;
                    }

                    await session.Gate.WaitAsync(stop).ConfigureAwait(false);
                    try
                    {
                        session.Acknowledge(batch.Acknowledged);
                        await AnswerAsync(batch, replies, session, stop).ConfigureAwait(false);
                    }
                    finally
                    {
                        session.Gate.Release();
                    }
                }
            }
        }
        catch (OperationCanceledException) when (stop.IsCancellationRequested)
        {
            // Stopping, or the client went away: what was not answered, the client writes again on its next stream.
        }
    }

    private async ValueTask AnswerAsync(PeerBatch batch, ChannelWriter<Outgoing> replies, PeerSession? session, CancellationToken stop)
    {
        var reply = new PeerBatch();
        var bytes = 0;
        var handled = 0;
        foreach (var request in batch.Envelopes)
        {
            Envelope? answer;
            if (session is not null && request.Sequence <= session.HandledThrough)
            {
                // A resend: answer from memory; if the client already acknowledged it, it needs nothing.
                state.CountDuplicate();
                answer = session.Recall(request.Sequence);
                if (answer is null)
                {
                    continue;
                }
            }
            else
            {
                // The handler's usual answer is synchronous (echo): no await, no state machine, per message.
                handled++;
                var pending = Invoke(request, stop);
                answer = pending.IsCompletedSuccessfully ? pending.Result : await pending.ConfigureAwait(false);
                if (session is not null)
                {
                    session.HandledThrough = request.Sequence;
                    session.Remember(answer);
                }
            }

            var size = EnvelopeSize(answer);
            if (reply.Envelopes.Count > 0 && (reply.Envelopes.Count == state.Options.MaxBatchCount || bytes + size > state.Options.MaxBatchBytes))
            {
                replies.TryWrite(new Outgoing(reply, bytes));
                reply = new PeerBatch();
                bytes = 0;
            }

            reply.Envelopes.Add(answer);
            bytes += size;
        }

        state.CountHandled(handled);
        if (reply.Envelopes.Count > 0)
        {
            replies.TryWrite(new Outgoing(reply, bytes));
        }
    }

    // An upper bound of the envelope's bytes on the wire, without encoding its strings twice.
    private static int EnvelopeSize(Envelope envelope) => 32 + ((envelope.Type.Length + envelope.Source.Length + envelope.Error.Length) * 3) + envelope.Payload.Length;

    private ValueTask<Envelope> Invoke(Envelope request, CancellationToken stop)
    {
        ValueTask<PeerMessage> pending;
        try
        {
            pending = state.Options.Handler(new PeerMessage(request.Type, request.Source, request.Payload.Memory), stop);
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
        var size = answer.WireSize;
        if (size > state.Options.MaxMessageBytes)
        {
            state.CountFailed();
            return Failed(request, $"The reply takes {size:N0} bytes; the server's limit (PeerServerOptions.MaxMessageBytes) is {state.Options.MaxMessageBytes:N0}.");
        }

        return new Envelope
        {
            Sequence = request.Sequence,
            Type = answer.Type ?? string.Empty,
            Source = answer.Source ?? string.Empty,
            Payload = UnsafeByteOperations.UnsafeWrap(answer.Payload),
        };
    }

    private Envelope Failed(Envelope request, Exception error)
    {
        state.CountFailed();
        return Failed(request, $"The server's handler failed on '{request.Type}': {error.GetType().Name}: {error.Message}");
    }

    private static Envelope Failed(Envelope request, string error) => new() { Sequence = request.Sequence, Type = request.Type, Error = error };

    // The only writer of the response stream: merges what is queued, up to the batch limits, into one write. A failed
    // write (the client went away) ends the loop; the replies are remembered in the session for the client's next stream.
    private async Task WriteAsync(ChannelReader<Outgoing> replies, IServerStreamWriter<PeerBatch> responseStream)
    {
        try
        {
            while (await replies.WaitToReadAsync().ConfigureAwait(false))
            {
                while (replies.TryRead(out var outgoing))
                {
                    var batch = outgoing.Batch;
                    if (batch.Envelopes.Count > 0 && batch.Envelopes.Count < state.Options.MaxBatchCount)
                    {
                        Merge(outgoing, replies);
                    }

                    await responseStream.WriteAsync(batch).ConfigureAwait(false);
                }
            }
        }
#pragma warning disable CA1031 // The client is gone; its next stream gets the remembered replies.
        catch (Exception)
#pragma warning restore CA1031
        {
            while (replies.TryRead(out _))
            {
            }
        }
    }

    // Adds the queued batches that fit into the first (which this stream made, so it may be changed).
    private void Merge(Outgoing first, ChannelReader<Outgoing> replies)
    {
        var bytes = first.Bytes;
        while (replies.TryPeek(out var next)
            && first.Batch.Envelopes.Count + next.Batch.Envelopes.Count <= state.Options.MaxBatchCount
            && bytes + next.Bytes <= state.Options.MaxBatchBytes)
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
