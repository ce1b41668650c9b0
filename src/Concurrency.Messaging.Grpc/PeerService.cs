using Concurrency.Messaging.Grpc.Protocol;
using Grpc.Core;

namespace Concurrency.Messaging.Grpc;

/// <summary>
/// The server side of the peer protocol: one <see cref="PeerStream"/> per call. This method is the reader: it drains the
/// request stream continuously, answers heartbeats at once, and returns only after the stream's loops are done. It ends
/// early when the host is stopping (the call's own token does not fire on shutdown), writing the replies already made first.
/// </summary>
internal sealed class PeerService(PeerServerState state) : Peer.PeerBase
{
    public override async Task Exchange(IAsyncStreamReader<PeerBatch> requestStream, IServerStreamWriter<PeerBatch> responseStream, ServerCallContext context)
    {
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(context.CancellationToken, state.Stopping);
        var sessionId = context.RequestHeaders.GetValue(PeerHeaders.Session);
        var session = sessionId is null ? null : state.Sessions.Attach(sessionId);
        var clientClosed = false;
        try
        {
            // The greeting: the client's handshake waits for this first batch. Written before the stream's write loop
            // starts, so the response stream still has one writer at a time.
            await responseStream.WriteAsync(PeerStream.Greeting).ConfigureAwait(false);
            var stream = new PeerStream(state, session, responseStream, stop.Token);
            try
            {
                while (await requestStream.MoveNext(stop.Token).ConfigureAwait(false))
                {
                    var batch = requestStream.Current;
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
            catch (Exception error) when (error is IOException or OperationCanceledException or RpcException)
            {
                // A failed read (client reset, host stopping) ends this stream; the client reconnects and resends.
            }
            finally
            {
                await stream.CloseAsync().ConfigureAwait(false);
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
}
