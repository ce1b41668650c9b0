namespace Concurrency.Messaging.Grpc;

// The pump's work on one open stream: takes sends from the buffer, numbers them, batches and writes them.
public sealed partial class PeerClient
{
    // Writes what callers send until the client is completing and every send has its outcome.
    private async Task PumpStreamAsync(PeerConnection connection)
    {
        var taken = new List<PendingSend>(_options.MaxBatchCount);
        var open = new List<PendingSend>(_options.MaxBatchCount);
        var maxCount = _options.Mode == PeerMode.Sync ? 1 : _options.MaxBatchCount;
        while (true)
        {
            if (_carry is null && !_buffer.TryTake(out _carry))
            {
                if (_buffer.IsFinished)
                {
                    await WaitWithHeartbeatsAsync(_pending.WhenEmpty(), connection).ConfigureAwait(false);
                    return;
                }

                await _buffer.WaitToTakeAsync(connection.Broken).ConfigureAwait(false);
                continue;
            }

            Take(taken, maxCount);
            Admit(taken, open);
            var ping = connection.TakePing();
            if (open.Count == 0 && !ping)
            {
                continue;
            }

            await WriteAsync(connection, open, ping).ConfigureAwait(false);
            if (_options.Mode == PeerMode.Sync && open.Count == 1)
            {
                await WaitWithHeartbeatsAsync(open[0].Task, connection).ConfigureAwait(false);
            }
        }
    }

    // Takes the carried send and what else the buffer holds, up to the batch's count and bytes, and numbers them.
    private void Take(List<PendingSend> taken, int maxCount)
    {
        taken.Clear();
        var bytes = 0;
        var send = _carry!;
        _carry = null;
        while (true)
        {
            if (!ReferenceEquals(send, HeartbeatWake))
            {
                var size = send.Size;
                if (taken.Count > 0 && bytes + size > _options.MaxBatchBytes)
                {
                    _carry = send;
                    return;
                }

                send.Sequence = ++_lastSequence;
                taken.Add(send);
                bytes += size;
            }

            if (taken.Count >= maxCount || !_buffer.TryTake(out send))
            {
                return;
            }
        }
    }

    // Puts numbered sends in the in-order line (all of them: a settled one is delivered in its turn) and the open ones,
    // not yet past their deadline, in the pending table. Fills open with what is to be written.
    private void Admit(List<PendingSend> taken, List<PendingSend> open)
    {
        open.Clear();
        _delivery?.Append(taken);
        var now = Environment.TickCount64;
        foreach (var send in taken)
        {
            if (!send.IsOpen)
            {
                continue;
            }

            if (send.Deadline <= now)
            {
                TimeOut(send);
                continue;
            }

            open.Add(send);
        }

        _pending.Add(open);
    }

    private async Task WriteAsync(PeerConnection connection, List<PendingSend> sends, bool ping)
    {
        var batch = _batch;
        batch.Clear();
        foreach (var send in sends)
        {
            batch.Sends.Add(send);
            send.Writes++;
        }

        batch.Heartbeat = ping;
        batch.Acknowledged = Volatile.Read(ref _acknowledged);

        // The write encodes the batch before it completes (PeerWire.Encode); only then is it cleared for the next.
        await connection.Call.RequestStream.WriteAsync(batch, connection.Broken).ConfigureAwait(false);
        Interlocked.Increment(ref _writes);
        Interlocked.Add(ref _written, sends.Count);
        PeerMeter.Add(PeerMeter.ClientBatchesSent, 1);
        PeerMeter.Add(PeerMeter.ClientMessagesSent, sends.Count);
        batch.Clear();
    }

    // Waits for a task (a reply, or the last reply) whatever its outcome, writing a heartbeat whenever the sweeper asks.
    private async Task WaitWithHeartbeatsAsync(Task task, PeerConnection connection)
    {
        while (!task.IsCompleted)
        {
            await task.WaitAsync(_options.HeartbeatInterval / 2, connection.Broken).ConfigureAwait(ConfigureAwaitOptions.SuppressThrowing);
            connection.Broken.ThrowIfCancellationRequested();
            if (!task.IsCompleted && connection.TakePing())
            {
                await WriteAsync(connection, [], ping: true).ConfigureAwait(false);
            }
        }
    }
}
