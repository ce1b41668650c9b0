namespace Concurrency.Messaging.Grpc;

/// <summary>
/// The write side of a <see cref="PeerClient"/> (the messenger): the only writer of its streams. It opens a stream
/// (<see cref="PeerConnector"/>), starts its <see cref="PeerListener"/>, writes again every send the last stream did not
/// answer, then takes sends from the buffer (<see cref="SendIntake"/>) and writes them in batches; on a broken stream it
/// starts over after a growing delay. When the client is closed it fails whatever is left, never drops it.
/// </summary>
/// <remarks>
/// One task (<see cref="Completion"/>) runs all of it, so every field here is the pump's alone, but for the counters
/// (written by the pump with <see cref="Interlocked"/>, read by anyone) and the first stream's task (completed by the
/// pump, awaited by <see cref="PeerClient.ConnectAsync"/>). Gets what it shares with the other parts from
/// <see cref="PeerClientState"/>: the buffer and the pending table, the deliveries, the last error and the fault.
/// </remarks>
internal sealed class PeerPump : IDisposable
{
    private readonly PeerClientState _state;
    private readonly PeerClientOptions _options;
    private readonly SendBuffer _buffer;
    private readonly PendingTable _pending;
    private readonly SendIntake _intake;
    private readonly PeerConnector _connector;
    private readonly PeerListener _listener;
    private readonly PeerSweeper _sweeper;
    private readonly CancellationTokenSource _stop = new();
    private readonly TaskCompletionSource _firstStream = new(TaskCreationOptions.RunContinuationsAsynchronously);

    // The batch object reused for every write.
    private readonly OutgoingBatch _batch;

    // How many sends one write holds: one in sync mode.
    private readonly int _maxCount;
    private readonly Task _task;

    // Written by the pump (Interlocked), read by anyone through the counts below.
    private long _reconnects;
    private long _resent;
    private long _writes;
    private long _written;

    public PeerPump(PeerClientState state, PeerListener listener, PeerSweeper sweeper)
    {
        _state = state;
        _options = state.Options;
        _buffer = state.Buffer;
        _pending = state.Pending;
        _intake = new SendIntake(state);
        _connector = new PeerConnector(state.Address, state.Options);
        _listener = listener;
        _sweeper = sweeper;
        _batch = new OutgoingBatch(_options.MaxBatchCount);
        _maxCount = _options.Mode == PeerMode.Sync ? 1 : _options.MaxBatchCount;
        _task = Task.Run(RunAsync);
    }

    /// <summary>Gets the pump's task: it finishes when the client is closed and every send has its outcome.</summary>
    public Task Completion => _task;

    /// <summary>Gets a task that finishes when the first stream is open, or fails when none will be.</summary>
    public Task FirstStream => _firstStream.Task;

    public long ReconnectCount => Interlocked.Read(ref _reconnects);

    public long ResentCount => Interlocked.Read(ref _resent);

    public long WriteCount => Interlocked.Read(ref _writes);

    public long WrittenCount => Interlocked.Read(ref _written);

    /// <summary>Stops at once: the open stream is cancelled, and the pump fails what is left and ends.</summary>
    public async Task StopAsync()
    {
        await _stop.CancelAsync().ConfigureAwait(false);
        await _task.ConfigureAwait(false);
    }

    /// <summary>After <see cref="StopAsync"/>: lets the channel go.</summary>
    public void Dispose()
    {
        _connector.Dispose();
        _stop.Dispose();
    }

    private async Task RunAsync()
    {
        var delay = _options.ReconnectDelay;
        try
        {
            // Finished once the client is closed (the buffer is completed only then, or on a fault, which returns below).
            while (!(_intake.IsFinished && _pending.Count == 0))
            {
                PeerConnection connection;
                try
                {
                    connection = await _connector.OpenAsync(_stop.Token).ConfigureAwait(false);
                    connection.Listener = _listener.ListenAsync(connection);
                }
                catch (Exception error) when (!_stop.IsCancellationRequested)
                {
                    if (StreamFailures.Permanent(error, _state.Address) is { } fault)
                    {
                        Fault(fault);
                        return;
                    }

                    _state.LastError = error;
                    _intake.AdmitAll(); // while no stream is open, sends are numbered and moved to the pending table so that their deadlines run
                    await Task.Delay(delay, _stop.Token).ConfigureAwait(false);
                    delay = Grow(delay);
                    continue;
                }

                _sweeper.Watch(connection);
                _firstStream.TrySetResult();
                var closed = false;
                try
                {
                    await ResendAsync(connection).ConfigureAwait(false);
                    await PumpStreamAsync(connection).ConfigureAwait(false);
                    await CloseAsync(connection).ConfigureAwait(false);
                    closed = true;
                    return;
                }
                catch (Exception error) when (!_stop.IsCancellationRequested)
                {
                    // The listener must be gone before another stream's listener starts (the listener/messenger race),
                    // and its error, the stream's real cause, is final only then.
                    connection.Break(error);
                    await connection.Listener.ConfigureAwait(false);
                    var cause = connection.Error ?? error;
                    if (StreamFailures.Permanent(cause, _state.Address) is { } fault)
                    {
                        Fault(fault);
                        return;
                    }

                    _state.LastError = cause;
                    Interlocked.Increment(ref _reconnects);
                    PeerMeter.Add(PeerMeter.ClientReconnects, 1);
                    delay = _options.ReconnectDelay;
                    if (connection.HalfOpen)
                    {
                        _connector.ReplaceChannel();
                    }
                }
                finally
                {
                    _sweeper.Watch(null);
                    if (!closed)
                    {
                        connection.Break(new OperationCanceledException("The stream was dropped."));
                        await connection.Listener.ConfigureAwait(false);
                    }

                    connection.Dispose();
                }

                await Task.Delay(delay, _stop.Token).ConfigureAwait(false);
                delay = Grow(delay);
            }
        }
#pragma warning disable CA1031 // Disposed: whatever the cancelled stream threw, what is left fails below.
        catch (Exception) when (_stop.IsCancellationRequested)
#pragma warning restore CA1031
        {
        }
        finally
        {
            await FailEverythingAsync().ConfigureAwait(false);
        }
    }

    private TimeSpan Grow(TimeSpan delay) => delay * 2 < _options.MaxReconnectDelay ? delay * 2 : _options.MaxReconnectDelay;

    // On a new stream: writes again, in sequence order, every send the old stream did not answer.
    private async Task ResendAsync(PeerConnection connection)
    {
        var unanswered = _pending.OpenInOrder();
        var chunk = new List<PendingSend>(_options.MaxBatchCount);
        var bytes = 0;
        foreach (var send in unanswered)
        {
            if (send.Writes > _options.MaxResends)
            {
                _pending.Forget(send);
                var last = _state.LastError;
                send.Fail(new PeerDeliveryException(
                    PeerDeliveryFailure.ResendsExhausted,
                    $"The message (sequence {send.Sequence}) was written {send.Writes} times to {_state.Address} and each stream broke before its reply{StreamFailures.Describe(last)}.",
                    last));
                continue;
            }

            var size = send.Size;
            if (chunk.Count == _maxCount || (chunk.Count > 0 && bytes + size > _options.MaxBatchBytes))
            {
                await WriteChunkAsync(connection, chunk).ConfigureAwait(false);
                bytes = 0;
            }

            chunk.Add(send);
            bytes += size;
        }

        if (chunk.Count > 0)
        {
            await WriteChunkAsync(connection, chunk).ConfigureAwait(false);
        }
    }

    private async Task WriteChunkAsync(PeerConnection connection, List<PendingSend> chunk)
    {
        foreach (var send in chunk)
        {
            if (send.Writes > 0)
            {
                Interlocked.Increment(ref _resent);
                PeerMeter.Add(PeerMeter.ClientResends, 1);
            }
        }

        await WriteAsync(connection, chunk, ping: false).ConfigureAwait(false);
        if (_options.Mode == PeerMode.Sync)
        {
            await WaitWithHeartbeatsAsync(chunk[0].Task, connection).ConfigureAwait(false);
        }

        chunk.Clear();
    }

    // Writes what callers send until the client is completing and every send has its outcome.
    private async Task PumpStreamAsync(PeerConnection connection)
    {
        var taken = new List<PendingSend>(_options.MaxBatchCount);
        var open = new List<PendingSend>(_options.MaxBatchCount);
        while (true)
        {
            if (!_intake.TryCarry())
            {
                if (_buffer.IsFinished)
                {
                    await WaitWithHeartbeatsAsync(_pending.WhenEmpty(), connection).ConfigureAwait(false);
                    return;
                }

                await _buffer.WaitToTakeAsync(connection.Broken).ConfigureAwait(false);
                continue;
            }

            _intake.Take(taken, _maxCount);
            _intake.Admit(taken, open);
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
        batch.Acknowledged = _listener.Acknowledged;

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

    // Safe close: no more writes, then read the replies to their end (the server ends its side after our end), then dispose.
    private async Task CloseAsync(PeerConnection connection)
    {
        await connection.Call.RequestStream.CompleteAsync().ConfigureAwait(false);
        await connection.Listener.WaitAsync(_options.ConnectTimeout, _stop.Token).ConfigureAwait(ConfigureAwaitOptions.SuppressThrowing);
        if (!connection.Listener.IsCompleted)
        {
            // Every send has its outcome already; a server that does not end its side is only cut off.
            connection.Break(new TimeoutException("The server did not end the stream after the client ended its side."));
            await connection.Listener.ConfigureAwait(false);
        }
    }

    // Only ConnectAsync awaits this task; a client made with Create never does, so its failure is marked observed.
    private void SetFirstStreamFailed(Exception error)
    {
        if (_firstStream.TrySetException(error))
        {
            _ = _firstStream.Task.Exception;
        }
    }

    private void Fault(PeerDeliveryException fault)
    {
        _state.SetFault(fault);
        SetFirstStreamFailed(fault);
    }

    // The pump is ending: whatever is left fails (never vanishes), then the deliveries finish handing outcomes over.
    private async Task FailEverythingAsync()
    {
        _state.CompleteBuffer();
        var error = _state.Fault ?? _state.Closed("The client was disposed before the reply came.");
        _intake.FailAll(error);
        foreach (var send in _pending.TakeAll())
        {
            send.Fail(error);
        }

        if (_state.Delivery is { } delivery)
        {
            await delivery.DisposeAsync().ConfigureAwait(false);
        }

        if (_state.Replies is { } replies)
        {
            // The listener is gone; let the replies it handed over reach their callers while the sweeper still runs
            // (it carries on past a continuation that blocks), so that closing never strands one.
            await replies.WhenDrainedAsync().ConfigureAwait(false);
        }

        SetFirstStreamFailed(_state.Fault ?? _state.Closed("The client was closed before a stream opened."));
    }
}
