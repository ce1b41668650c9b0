using Concurrency.Messaging.Grpc.Protocol;
using Grpc.Core;

namespace Concurrency.Messaging.Grpc;

/// <summary>
/// The server side of the peer protocol: one <see cref="PeerStream"/> per call. This method is the reader: it lets the
/// call in among the server's streams (<see cref="PeerStreams"/>, by the identity of its token), attaches it to its session
/// (issuing a new one when the client presents no id this server knows for that identity), checks each request batch
/// against the server's limits, answers heartbeats at once, and hands the batch on; while the stream is behind it stops
/// reading (see <see cref="PeerServerOptions.MaxQueuedBatches"/>). It returns only after the stream's loops are done, and
/// ends early when the host is stopping (the call's own token does not fire on shutdown), writing the replies already made first.
/// </summary>
internal sealed class PeerService(PeerServerState state) : PeerServiceBinding
{
    public override async Task Exchange(IAsyncStreamReader<PeerBatch> requestStream, IServerStreamWriter<PeerBatch> responseStream, ServerCallContext context)
    {
        var identity = state.Options.BearerTokens is null ? BearerTokenInterceptor.SharedIdentity : BearerTokenInterceptor.IdentityOf(context);
        var slot = state.OpenStreams.TryOpen(identity, out var identityFull) ?? throw StreamsRefusal(identityFull);
        try
        {
            await ExchangeAsync(slot, requestStream, responseStream, context).ConfigureAwait(false);
        }
        finally
        {
            state.OpenStreams.Close(slot);
        }
    }

    private async Task ExchangeAsync(StreamSlot slot, IAsyncStreamReader<PeerBatch> requestStream, IServerStreamWriter<PeerBatch> responseStream, ServerCallContext context)
    {
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(context.CancellationToken, state.Stopping);
        var session = state.Sessions.Attach(context.RequestHeaders.GetValue(PeerHeaders.Session), slot.Identity, out var identityFull)
            ?? throw SessionsRefusal(identityFull);
        session.Supersede(stop);
        slot.Attach(session, stop);
        PeerServiceLog.StreamOpened(state.Logger, state.Sessions.Count);
        var clientClosed = false;
        try
        {
            // Armed only while the reader waits for the client: a stream the server itself stopped reading (back-pressure)
            // is not idle, nor one taking replies (each write touches it). A PeerClient with nothing to send still sends a
            // heartbeat every HeartbeatInterval.
            using var idle = new PeerDeadline(state.Options.TimeProvider, state.Options.ReadIdleTimeout, stop);
            using var writer = new PeerResponseWriter(responseStream, context.GetHttpContext().Abort, state.Options, stop.Token, state.Stopping, idle);

            // The session's id, then the greeting: the client's handshake waits for this first batch. Written before the
            // stream's write loop starts, so the response stream still has one writer at a time.
            await context.WriteResponseHeadersAsync(new Metadata { { PeerHeaders.Session, session.Id } }).ConfigureAwait(false);
            await writer.WriteAsync(PeerStream.Greeting).ConfigureAwait(false);
            var stream = new PeerStream(state, session, writer, stop);
            try
            {
                while (await NextAsync(requestStream, idle, stop.Token).ConfigureAwait(false))
                {
                    var batch = requestStream.Current;
                    Check(batch, session);
                    slot.Saw(batch, state.Options.TimeProvider);
                    state.Meter.Received(batch.Envelopes.Count);
                    if (batch.Heartbeat)
                    {
                        stream.Heartbeat();
                    }

                    if (batch.Envelopes.Count > 0 || batch.Acknowledged > 0)
                    {
                        await stream.AcceptAsync(batch).ConfigureAwait(false);
                    }
                }

                clientClosed = true;
            }
            catch (Exception error) when (error is IOException or OperationCanceledException || error is RpcException { StatusCode: not (StatusCode.ResourceExhausted or StatusCode.OutOfRange or StatusCode.InvalidArgument) })
            {
                // A failed read (client reset, host stopping) ends this stream; the client reconnects and resends. A batch
                // over a limit is not caught: its status and reason (ours, or gRPC's for a batch over 4 MiB) end the call.
            }
            catch (RpcException refused) when (refused.StatusCode == StatusCode.ResourceExhausted && refused.Trailers.GetValue(PeerHeaders.Refusal) is null)
            {
                // gRPC's own refusal of a batch over 4 MiB, read only as far as its length: the rest is drained first.
                await DrainAsync(context, stop.Token).ConfigureAwait(false);
                throw Report("batch_size", Refusal(StatusCode.ResourceExhausted, $"{refused.Status.Detail} This server takes batches of at most {PeerClientOptions.WireLimitBytes:N0} bytes and {state.Options.MaxRequestBatchCount:N0} requests."));
            }
            finally
            {
                await stream.CloseAsync().ConfigureAwait(false);
            }

            if (idle.HasPassed && !slot.GaveWay && !state.Stopping.IsCancellationRequested)
            {
                // Its session stays, as for a stream that gave way: the client reconnects when it has something to send.
                throw Report("read_idle", new RpcException(new Status(StatusCode.Unavailable, $"This stream sent nothing for {state.Options.ReadIdleTimeout.TotalSeconds:N0} s (PeerServerOptions.ReadIdleTimeout). Reconnect when there is something to send; a client with nothing to send keeps its stream with a heartbeat.")));
            }

            if (slot.GaveWay && !state.Stopping.IsCancellationRequested)
            {
                // Its session stays: the client reconnects (Unavailable is worth a retry) and resends what was unanswered.
                throw Report("stream_idle", new RpcException(new Status(StatusCode.Unavailable, $"This stream brought no request for {state.Options.StreamIdleTimeout.TotalSeconds:N0} s (PeerServerOptions.StreamIdleTimeout) and gave way to a new stream at the server's limit. Reconnect when there is something to send.")));
            }
        }
        finally
        {
            PeerServiceLog.StreamEnded(state.Logger, clientClosed);
            session.Leave(stop);
            state.Sessions.Detach(session, clientClosed);
        }
    }

    // A stream past the server's stream cap, or its identity's, with no idle stream to give way.
    private RpcException StreamsRefusal(bool identityFull)
    {
        var idle = $"none idle for {state.Options.StreamIdleTimeout.TotalSeconds:N0} s (PeerServerOptions.StreamIdleTimeout). Try again later.";
        return identityFull
            ? Report("identity_streams", new RpcException(new Status(StatusCode.ResourceExhausted, $"This client's identity has its most streams open ({state.Options.StreamsPerIdentity:N0}, PeerServerOptions.MaxStreamsPerIdentity), {idle}")))
            : Report("streams", new RpcException(new Status(StatusCode.ResourceExhausted, $"This server has its most streams open ({state.Options.MaxStreams:N0}, PeerServerOptions.MaxStreams), {idle}")));
    }

    // A new session past the server's session cap, or its identity's, with no idle session to forget.
    private RpcException SessionsRefusal(bool identityFull) => identityFull
        ? Report("identity_sessions", new RpcException(new Status(StatusCode.ResourceExhausted, $"This server holds the most sessions of this client's identity ({state.Options.SessionsPerIdentity:N0}, PeerServerOptions.MaxSessionsPerIdentity), each with a stream open. Try again later.")))
        : Report("sessions", new RpcException(new Status(StatusCode.ResourceExhausted, $"This server holds its most sessions ({state.Options.MaxSessions:N0}, PeerServerOptions.MaxSessions), each with a stream open. Try again later.")));

    // The reader's wait for the client's next batch, within ReadIdleTimeout: past it the stream stops, as when the client resets it.
    private static async Task<bool> NextAsync(IAsyncStreamReader<PeerBatch> requestStream, PeerDeadline idle, CancellationToken stop)
    {
        idle.Arm();
        try
        {
            return await requestStream.MoveNext(stop).ConfigureAwait(false);
        }
        finally
        {
            idle.Disarm();
        }
    }

    // Counts and logs a refusal of the stream, which the caller then throws.
    private RpcException Report(string reason, RpcException refusal)
    {
        state.Refused(reason, refusal.Status.Detail, stream: true);
        return refusal;
    }

    // A refusal that no retry of the same batches can fix: the trailer tells the client to stop rather than resend them.
    private static RpcException Refusal(StatusCode code, string reason)
        => new(new Status(code, reason), new Metadata { { PeerHeaders.Refusal, PeerHeaders.Permanent } });

    // The rest of a batch that was refused unread is still on its way: read and dropped, a bounded amount for a bounded time,
    // so that the status reaches the client with the trailers instead of being lost to the reset of a half-read stream.
    private static async Task DrainAsync(ServerCallContext context, CancellationToken stop)
    {
        var body = context.GetHttpContext().Request.BodyReader;
        using var bounded = CancellationTokenSource.CreateLinkedTokenSource(stop);
        bounded.CancelAfter(TimeSpan.FromSeconds(2));
        long drained = 0;
        try
        {
            while (drained < 2L * PeerClientOptions.WireLimitBytes)
            {
                var read = await body.ReadAsync(bounded.Token).ConfigureAwait(false);
                drained += read.Buffer.Length;
                body.AdvanceTo(read.Buffer.End);
                if (read.IsCompleted)
                {
                    return;
                }
            }
        }
#pragma warning disable CA1031 // Draining is a courtesy: whatever ends it, the refusal's status is sent next.
        catch (Exception)
#pragma warning restore CA1031
        {
        }
    }

    // The limits a batch must keep before anything of it is handled.
    private void Check(PeerBatch batch, PeerSession session)
    {
        var envelopes = batch.Envelopes;
        if (envelopes.Count > state.Options.MaxRequestBatchCount)
        {
            throw Report("batch_count", Refusal(StatusCode.ResourceExhausted, $"The batch carries {envelopes.Count:N0} requests; this server takes at most {state.Options.MaxRequestBatchCount:N0} (PeerServerOptions.MaxRequestBatchCount)."));
        }

        // A client numbers its requests once each and writes them, resends included, in sequence order: a batch that
        // repeats or goes back is not one of ours, and handling part of it would leave the session's mark in its middle.
        ulong highest = 0;
        foreach (var envelope in envelopes)
        {
            if (envelope.Sequence <= highest)
            {
                throw Report("sequence_order", Refusal(StatusCode.InvalidArgument, $"Sequence number {envelope.Sequence:N0} comes after {highest:N0} in one batch; a batch's sequence numbers start at 1 and must be strictly increasing."));
            }

            highest = envelope.Sequence;
        }

        if (highest != 0 && !session.Admits(envelopes, (ulong)state.Options.MaxSequenceGap, batch.Acknowledged))
        {
            throw Report("sequence_gap", Refusal(StatusCode.OutOfRange, $"Sequence number {highest:N0} is more than {state.Options.MaxSequenceGap:N0} past the highest this session has seen (for a session's first batch, past what it acknowledged), or the session has passed over more numbers than that plus those it sent (PeerServerOptions.MaxSequenceGap)."));
        }
    }
}
