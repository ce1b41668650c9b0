namespace Concurrency.Messaging.Grpc;

/// <summary>
/// The read side of a <see cref="PeerClient"/>: the only reader of a stream's replies. It settles the sends they answer
/// (taken out of the pending table), hands the settled ones to the reply delivery in async mode, and keeps the highest
/// sequence number answered, which the pump acknowledges on its writes.
/// </summary>
/// <remarks>
/// One listener runs per open stream, started by the pump (<see cref="ListenAsync"/>), and the pump waits for it to end
/// before it starts the next stream's, so two never run together. Any end of the stream, clean or not, breaks the
/// connection; the pump decides whether that was the expected end of a close.
/// </remarks>
internal sealed class PeerListener(PeerClientState state)
{
    // Copied from the shared state, so that a reply costs no hop through it.
    private readonly Uri _address = state.Address;
    private readonly PendingTable _pending = state.Pending;
    private readonly ReplyDelivery? _replies = state.Replies;

    // The highest sequence number a reply answered: written by the listener, read by the pump for each write.
    private ulong _acknowledged;

    /// <summary>Gets the highest sequence number a reply answered so far.</summary>
    public ulong Acknowledged => Volatile.Read(ref _acknowledged);

    /// <summary>Reads the connection's replies until the stream ends or breaks; never throws (a failure breaks the connection).</summary>
    public async Task ListenAsync(PeerConnection connection)
    {
        await Task.Yield();
        var found = new List<PendingSend?>();
        var settled = new List<PendingSend>();
        try
        {
            var replies = connection.Call.ResponseStream;
            while (await replies.MoveNext(connection.Broken).ConfigureAwait(false))
            {
                connection.MarkRead();
                var batch = replies.Current;
                if (batch.Replies.Count > 0)
                {
                    PeerMeter.Add(PeerMeter.ClientMessagesReceived, batch.Replies.Count);
                    Complete(batch, found, settled);
                }
            }

            connection.Break(new IOException($"The server at {_address} ended the stream."));
        }
#pragma warning disable CA1031 // Every failure of the read side is a broken stream; the pump reconnects or reports it.
        catch (Exception error)
#pragma warning restore CA1031
        {
            connection.Break(error);
        }
    }

    // Settles the sends these replies answer; in async mode hands the ones it settled to the reply delivery, as one batch.
    private void Complete(ReplyBatch batch, List<PendingSend?> found, List<PendingSend> settled)
    {
        found.Clear();
        _pending.Remove(batch.Replies, found);
        var highest = Volatile.Read(ref _acknowledged);
        try
        {
            for (var i = 0; i < found.Count; i++)
            {
                var reply = batch.Replies[i];
                highest = Math.Max(highest, reply.Sequence);
                if (found[i] is not { } send)
                {
                    continue;
                }

                var won = reply.Forgotten
                    ? send.Fail(new PeerDeliveryException(PeerDeliveryFailure.Forgotten, $"{reply.Error} ({_address})"), byListener: true)
                    : reply.Error.Length > 0
                        ? send.Fail(new PeerRemoteException(reply.Error), byListener: true)
                        : send.Reply(new PeerMessage(reply.Type, reply.Source, reply.Payload));
                if (won && _replies is not null)
                {
                    settled.Add(send);
                }
            }

            Volatile.Write(ref _acknowledged, highest);
        }
        finally
        {
            // Settled and out of the pending table: whatever happened above, these must reach their callers.
            if (settled.Count > 0)
            {
                _replies!.Enqueue(settled);
                settled.Clear();
            }
        }
    }
}
