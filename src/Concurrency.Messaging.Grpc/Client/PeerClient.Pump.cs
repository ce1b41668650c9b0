using Grpc.Core;

namespace Concurrency.Messaging.Grpc;

// The pump (the messenger): the only writer of the stream. It opens streams, resends across reconnects, and closes.
public sealed partial class PeerClient
{
    // The messenger: opens a stream, writes again what was not answered, writes what callers send, and on a broken stream
    // starts over after a delay. Returns when the client is closed; whatever is left then fails, never vanishes.
    private async Task PumpAsync()
    {
        var delay = _options.ReconnectDelay;
        try
        {
            while (!IsFinished())
            {
                PeerConnection connection;
                try
                {
                    connection = await OpenAsync().ConfigureAwait(false);
                }
                catch (Exception error) when (!_stop.IsCancellationRequested)
                {
                    if (StreamFailures.Permanent(error, Address) is { } fault)
                    {
                        Fault(fault);
                        return;
                    }

                    _lastError = error;
                    TakeBufferedWhileDisconnected();
                    await Task.Delay(delay, _stop.Token).ConfigureAwait(false);
                    delay = Grow(delay);
                    continue;
                }

                Volatile.Write(ref _connection, connection);
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
                    if (StreamFailures.Permanent(cause, Address) is { } fault)
                    {
                        Fault(fault);
                        return;
                    }

                    _lastError = cause;
                    Interlocked.Increment(ref _reconnects);
                    PeerMeter.Add(PeerMeter.ClientReconnects, 1);
                    delay = _options.ReconnectDelay;
                    if (connection.HalfOpen)
                    {
                        ReplaceChannel();
                    }
                }
                finally
                {
                    Volatile.Write(ref _connection, null);
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
            FailEverything();
            if (_delivery is not null)
            {
                await _delivery.DisposeAsync().ConfigureAwait(false);
            }

            if (_replies is not null)
            {
                // The listener is gone; let the replies it handed over reach their callers while the sweeper still runs
                // (it carries on past a continuation that blocks), so that closing never strands one.
                await _replies.WhenDrainedAsync().ConfigureAwait(false);
            }

            SetFirstStreamFailed(_fault ?? Closed("The client was closed before a stream opened."));
        }
    }

    private void ReplaceChannel()
    {
        var old = _channel;
        _channel = PeerChannel.Create(Address, _options);
        _invoker = _channel.CreateCallInvoker();
        old.Dispose();
    }

    private bool IsFinished() =>
        Volatile.Read(ref _state) != Open && _carry is null && _buffer.IsFinished && _pending.Count == 0;

    private TimeSpan Grow(TimeSpan delay) => delay * 2 < _options.MaxReconnectDelay ? delay * 2 : _options.MaxReconnectDelay;

    private async Task<PeerConnection> OpenAsync()
    {
        var broken = CancellationTokenSource.CreateLinkedTokenSource(_stop.Token);
        AsyncDuplexStreamingCall<OutgoingBatch, ReplyBatch> call;
        try
        {
            var headers = new Metadata();
            if (_session is { } session)
            {
                headers.Add(PeerHeaders.Session, session);
            }

            if (_authorization is { } authorization)
            {
                headers.Add(PeerHeaders.Authorization, authorization);
            }

            call = _invoker.AsyncDuplexStreamingCall(PeerWire.Exchange, null, new CallOptions(headers, cancellationToken: broken.Token));
        }
        catch
        {
            broken.Dispose();
            throw;
        }

        var connection = new PeerConnection(call, broken);
        try
        {
            // The server's first batch, a heartbeat sent as soon as it accepts the stream, is the handshake. A refusal (bad
            // token, unknown method) ends the call instead, and the read throws its status.
            var greeting = call.ResponseStream.MoveNext(broken.Token);

            // Given up on (timeout, disposal), the read faults once the call is disposed: observed here, not left to the finalizer.
            _ = greeting.ContinueWith(static read => _ = read.Exception, CancellationToken.None, TaskContinuationOptions.OnlyOnFaulted | TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
            var greeted = await greeting.WaitAsync(_options.ConnectTimeout, _stop.Token).ConfigureAwait(false);
            if (!greeted)
            {
                throw new IOException($"The server at {Address} ended the stream before greeting it.");
            }

            // The headers came before the greeting. A server that did not know the id presented issued a new one (it
            // forgot the session, or restarted): resends on it are handled afresh, as after a restart.
            var issued = (await call.ResponseHeadersAsync.ConfigureAwait(false)).GetValue(PeerHeaders.Session);
            if (issued is not null)
            {
                _session = issued;
            }
        }
        catch (TimeoutException timeout)
        {
            connection.Dispose();
            throw new TimeoutException($"The server at {Address} did not answer within {_options.ConnectTimeout.TotalSeconds:0.###} s.", timeout);
        }
        catch
        {
            connection.Dispose();
            throw;
        }

        connection.MarkRead();
        connection.Listener = ListenAsync(connection);
        return connection;
    }

    // On a new stream: writes again, in sequence order, every send the old stream did not answer.
    private async Task ResendAsync(PeerConnection connection)
    {
        var unanswered = _pending.OpenInOrder();
        var chunk = new List<PendingSend>(_options.MaxBatchCount);
        var bytes = 0;
        var maxCount = _options.Mode == PeerMode.Sync ? 1 : _options.MaxBatchCount;
        foreach (var send in unanswered)
        {
            if (send.Writes > _options.MaxResends)
            {
                _pending.Forget(send);
                send.Fail(new PeerDeliveryException(
                    PeerDeliveryFailure.ResendsExhausted,
                    $"The message (sequence {send.Sequence}) was written {send.Writes} times to {Address} and each stream broke before its reply{StreamFailures.Describe(_lastError)}.",
                    _lastError));
                continue;
            }

            var size = send.Size;
            if (chunk.Count == maxCount || (chunk.Count > 0 && bytes + size > _options.MaxBatchBytes))
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

    // While no stream is open, sends are numbered and moved to the pending table so that their deadlines run.
    private void TakeBufferedWhileDisconnected()
    {
        var taken = new List<PendingSend>();
        var open = new List<PendingSend>();
        while (_carry is not null || _buffer.TryTake(out _carry))
        {
            Take(taken, int.MaxValue);
            Admit(taken, open);
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
        _fault = fault;
        CompleteBuffer();
        SetFirstStreamFailed(fault);
    }

    private void FailEverything()
    {
        CompleteBuffer();
        var error = _fault ?? Closed("The client was disposed before the reply came.");
        var taken = new List<PendingSend>();
        while (_carry is not null || _buffer.TryTake(out _carry))
        {
            Take(taken, int.MaxValue);
            _delivery?.Append(taken);
            foreach (var send in taken)
            {
                send.Fail(error);
            }
        }

        foreach (var send in _pending.TakeAll())
        {
            send.Fail(error);
        }

    }
}
