namespace Concurrency.Messaging.Grpc;

// The listener: the only reader of the stream; it settles the sends its replies answer.
public sealed partial class PeerClient
{
    // The listener: the only reader of the response stream. Any end of it, clean or not, breaks the connection; the pump
    // decides whether that was the expected end of a close.
    private async Task ListenAsync(PeerConnection connection)
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

            connection.Break(new IOException($"The server at {Address} ended the stream."));
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
                    ? send.Fail(new PeerDeliveryException(PeerDeliveryFailure.Forgotten, $"{reply.Error} ({Address})"), byListener: true)
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
