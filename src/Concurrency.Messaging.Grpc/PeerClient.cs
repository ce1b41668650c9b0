using System.Net.Security;
using System.Security.Cryptography;
using Grpc.Core;
using Grpc.Net.Client;

namespace Concurrency.Messaging.Grpc;

/// <summary>
/// One side of a gRPC bidirectional stream to a <see cref="PeerServer"/> (or any server of Protos/peer.proto). Callers
/// send from any thread and get a task for the reply; one messenger pump is the only writer of the stream (gRPC stream
/// writes are not thread-safe), fed by a bounded buffer; one listener reads the replies and completes the callers.
/// </summary>
/// <remarks>
/// <para>
/// When the stream breaks (the server stops, the connection resets, or nothing is read for
/// <see cref="PeerClientOptions.ReadIdleTimeout"/> although heartbeats were asked for), the pump opens a new one, with a
/// growing delay, and writes again every message not yet answered; the server answers a message it already handled from
/// memory instead of handling it twice. A message is never dropped silently: its task ends with the reply, a
/// <see cref="PeerRemoteException"/> (the server's handler failed), a <see cref="PeerDeliveryException"/> (no reply
/// within <see cref="PeerClientOptions.DeliveryTimeout"/>, resends exhausted, credentials refused, client closed), or the
/// cancellation the caller asked for. A cancelled send may still reach the server if it was already written.
/// </para>
/// <para>
/// Close with <see cref="CompleteAsync"/> (waits for every reply, then closes the stream in the safe order: complete the
/// request stream, read the replies to their end, then dispose). <see cref="DisposeAsync"/> stops at once and fails
/// what is still waiting.
/// </para>
/// </remarks>
public sealed class PeerClient : IAsyncDisposable
{
    private const int Open = 0;
    private const int Completing = 1;
    private const int Disposed = 2;

    // Room for an envelope's sequence number, tag and length prefix beside PeerMessage.WireSize.
    private const int EnvelopeOverhead = 16;

    // Put in the buffer by the sweeper to wake an idle pump so that it writes a heartbeat; never numbered or sent.
    private static readonly PendingSend HeartbeatWake = new(default, 0, long.MaxValue, null);

    private readonly PeerClientOptions _options;
    // The bearer header, or null; sent on every stream.
    private readonly string? _authorization;

    // The session id the server issued on the first stream, presented on later ones so that it de-duplicates resends.
    // Written by the pump after a stream opens, read by the pump when it opens the next.
    private string? _session;
    private readonly SendBuffer _buffer;
    private readonly PendingTable _pending = new();
    private readonly InOrderDelivery? _delivery;
    private readonly ReplyDelivery? _replies;
    private readonly CancellationTokenSource _stop = new();
    private readonly TaskCompletionSource _firstStream = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly long _deliveryTimeoutMs;

    private readonly Timer _sweeper;
    private readonly Task _pump;

    // Pump only: the last sequence number given, the batch object reused for every write, and a send taken from the
    // buffer that did not fit the batch being built. The channel (HTTP/2 connection) too: replaced after a half-open
    // stream, because the old connection would carry the next stream into the same black hole.
    private readonly OutgoingBatch _batch;
    private GrpcChannel _channel;
    private CallInvoker _invoker;
    private ulong _lastSequence;
    private PendingSend? _carry;

    // Written by the listener (the highest sequence number a reply answered), read by the pump for each write.
    private ulong _acknowledged;

    // Written by the pump (the open stream, or null between streams), read by the sweeper.
    private PeerConnection? _connection;

    // Written by the pump (the last transport error, quoted in timeouts), read by the sweeper.
    private volatile Exception? _lastError;

    // Set once, by the pump: a failure no reconnect can fix (credentials refused); every send after it fails with it.
    private volatile PeerDeliveryException? _fault;

    private int _state;
    private long _reconnects;
    private long _resent;
    private long _timedOut;
    private long _halfOpen;
    private long _writes;
    private long _written;

    private PeerClient(Uri address, PeerClientOptions options)
    {
        Address = address;
        _options = options;
        _deliveryTimeoutMs = (long)options.DeliveryTimeout.TotalMilliseconds;
        _channel = CreateChannel(address, options);
        _invoker = _channel.CreateCallInvoker();
        _authorization = options.BearerToken is { } token ? PeerHeaders.BearerPrefix + token : null;

        _buffer = new SendBuffer(options.BufferSize);
        _batch = new OutgoingBatch(options.MaxBatchCount);
        _delivery = options.Mode == PeerMode.InOrder ? new InOrderDelivery() : null;
        _replies = options.Mode == PeerMode.Async ? new ReplyDelivery() : null;
        var period = TimeSpan.FromMilliseconds(Math.Clamp(
            Math.Min(options.HeartbeatInterval.TotalMilliseconds, options.DeliveryTimeout.TotalMilliseconds) / 4, 10, 250));
        _sweeper = new Timer(static state => ((PeerClient)state!).Sweep(), this, period, period);
        _pump = Task.Run(PumpAsync);
    }

    /// <summary>Gets the server's address.</summary>
    public Uri Address { get; }

    /// <summary>Gets how this client sends and hands back replies.</summary>
    public PeerMode Mode => _options.Mode;

    /// <summary>Gets how many times a broken stream was replaced by a new one.</summary>
    public long ReconnectCount => Interlocked.Read(ref _reconnects);

    /// <summary>Gets how many messages were written again on a new stream because the old one broke before their reply.</summary>
    public long ResentCount => Interlocked.Read(ref _resent);

    /// <summary>Gets how many sends failed with <see cref="PeerDeliveryFailure.Timeout"/>.</summary>
    public long TimedOutCount => Interlocked.Read(ref _timedOut);

    /// <summary>Gets how many batches (stream writes) the pump wrote, heartbeats included.</summary>
    public long WriteCount => Interlocked.Read(ref _writes);

    /// <summary>Gets how many messages the pump wrote, resends included; <see cref="WrittenCount"/> ÷ <see cref="WriteCount"/> is the mean batch.</summary>
    public long WrittenCount => Interlocked.Read(ref _written);

    /// <summary>Gets how many streams were dropped as half-open: nothing read for <see cref="PeerClientOptions.ReadIdleTimeout"/>.</summary>
    public long HalfOpenCount => Interlocked.Read(ref _halfOpen);

    /// <summary>
    /// Creates a client for the peer at <paramref name="address"/> and starts its pump, which opens the stream in the
    /// background. Sends made before the stream is open wait in the buffer.
    /// </summary>
    /// <param name="address">An absolute <c>http://</c> (HTTP/2 without TLS) or <c>https://</c> address, e.g. <c>http://127.0.0.1:5000</c>.</param>
    /// <param name="options">Options, or null for the defaults.</param>
    /// <returns>The client. Dispose it.</returns>
    /// <exception cref="ArgumentException"><paramref name="address"/> is not an absolute http or https address, or an option is out of range.</exception>
    public static PeerClient Create(string address, PeerClientOptions? options = null)
    {
        ArgumentNullException.ThrowIfNull(address);
        if (!Uri.TryCreate(address, UriKind.Absolute, out var uri)
            || (uri.Scheme != Uri.UriSchemeHttp && uri.Scheme != Uri.UriSchemeHttps)
            || uri.Host.Length == 0)
        {
            throw new ArgumentException($"'{address}' is not an absolute http:// or https:// address (for example http://127.0.0.1:5000).", nameof(address));
        }

        options ??= new PeerClientOptions();
        options.Validate();
        PeerCredentials.RefuseClearText(uri, options.BearerToken, options.AllowInsecureCredentials, nameof(address));
        return new PeerClient(uri, options);
    }

    /// <summary>
    /// Creates a client and waits until its first stream is open, so that a wrong or unreachable address fails here,
    /// within <see cref="PeerClientOptions.ConnectTimeout"/>, and not as timeouts of later sends.
    /// </summary>
    /// <param name="address">An absolute <c>http://</c> or <c>https://</c> address.</param>
    /// <param name="options">Options, or null for the defaults.</param>
    /// <param name="cancellationToken">Cancels the wait.</param>
    /// <returns>The connected client. Dispose it.</returns>
    /// <exception cref="ArgumentException">The address or an option is invalid.</exception>
    /// <exception cref="PeerDeliveryException">No stream opened in time (<see cref="PeerDeliveryFailure.Timeout"/>, with the last transport error inside), or the server refused the credentials.</exception>
    public static async Task<PeerClient> ConnectAsync(string address, PeerClientOptions? options = null, CancellationToken cancellationToken = default)
    {
        var client = Create(address, options);
        try
        {
            await client._firstStream.Task.WaitAsync(client._options.ConnectTimeout, cancellationToken).ConfigureAwait(false);
            return client;
        }
        catch (TimeoutException)
        {
            var last = client._lastError;
            await client.DisposeAsync().ConfigureAwait(false);
            throw new PeerDeliveryException(
                PeerDeliveryFailure.Timeout,
                $"Could not open a stream to {address} within {client._options.ConnectTimeout.TotalSeconds:0.###} s{Describe(last)}.",
                last);
        }
        catch
        {
            await client.DisposeAsync().ConfigureAwait(false);
            throw;
        }
    }

    /// <summary>Sends a message and returns a task for its reply. Safe from any thread.</summary>
    /// <param name="message">The message. Its payload is not copied: leave it unchanged until the task has finished.</param>
    /// <param name="cancellationToken">Cancels the wait for room in the buffer, and then the wait for the reply (the message may already have been written).</param>
    /// <returns>
    /// A task that finishes with the reply; see the class remarks for how it can fail. A send still waiting for room in the
    /// buffer when the client is completed fails with <see cref="PeerDeliveryFailure.Closed"/> and was not sent.
    /// </returns>
    /// <exception cref="ArgumentException">The message's type or source is null.</exception>
    /// <exception cref="PeerMessageTooLargeException">The message is larger than <see cref="PeerClientOptions.MaxMessageBytes"/>; nothing was sent.</exception>
    public Task<PeerMessage> SendAsync(PeerMessage message, CancellationToken cancellationToken = default)
    {
        if (message.Type is null || message.Source is null)
        {
            throw new ArgumentException("A message needs a type and a source (empty strings are allowed, null is not).", nameof(message));
        }

        // The limit is on WireSize, as the server's is; the envelope's own fields count toward the batch only.
        var wireSize = message.WireSize;
        if (wireSize > _options.MaxMessageBytes)
        {
            throw new PeerMessageTooLargeException(wireSize, _options.MaxMessageBytes);
        }

        var size = wireSize + EnvelopeOverhead;

        if (_fault is { } fault)
        {
            return Task.FromException<PeerMessage>(fault);
        }

        if (cancellationToken.IsCancellationRequested)
        {
            return Task.FromCanceled<PeerMessage>(cancellationToken);
        }

        var send = new PendingSend(message, size, Environment.TickCount64 + _deliveryTimeoutMs, _delivery, _replies);
        if (_buffer.Add(send) == SendAdmission.Closed)
        {
            return Task.FromException<PeerMessage>(Refusal());
        }

        // Added, or waiting for room (the pump lets it in as it takes sends out): either way the task is the reply's.
        send.Watch(_buffer, cancellationToken);
        return send.Task;
    }

    /// <summary>
    /// Stops taking sends, waits until every send has its outcome (reply, error or timeout), then closes the stream in the
    /// safe order. If <paramref name="cancellationToken"/> fires first, stops at once as <see cref="DisposeAsync"/> does.
    /// </summary>
    /// <param name="cancellationToken">Stops the wait, failing what is still waiting.</param>
    /// <returns>A task that finishes when the client is closed.</returns>
    public async Task CompleteAsync(CancellationToken cancellationToken = default)
    {
        Interlocked.CompareExchange(ref _state, Completing, Open);
        CompleteBuffer();
        try
        {
            await _pump.WaitAsync(cancellationToken).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
            await DisposeAsync().ConfigureAwait(false);
            throw;
        }
    }

    /// <summary>Stops at once: the stream is cancelled and every send still waiting fails with <see cref="PeerDeliveryFailure.Closed"/>.</summary>
    /// <returns>A task that finishes when the pump, the listener and the channel are gone.</returns>
    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _state, Disposed) == Disposed)
        {
            return;
        }

        CompleteBuffer();
        await _stop.CancelAsync().ConfigureAwait(false);
        await _pump.ConfigureAwait(false);
        await _sweeper.DisposeAsync().ConfigureAwait(false);
        _channel.Dispose();
        _stop.Dispose();
    }

    private static GrpcChannel CreateChannel(Uri address, PeerClientOptions options) => GrpcChannel.ForAddress(address, new GrpcChannelOptions
    {
        HttpHandler = CreateHandler(options),
        MaxReceiveMessageSize = PeerClientOptions.WireLimitBytes,
        MaxSendMessageSize = PeerClientOptions.WireLimitBytes,
        DisposeHttpClient = true,
    });

    private static SocketsHttpHandler CreateHandler(PeerClientOptions options)
    {
        var handler = new SocketsHttpHandler
        {
            ConnectTimeout = options.ConnectTimeout,
            PooledConnectionIdleTimeout = Timeout.InfiniteTimeSpan,
            EnableMultipleHttp2Connections = false,

            // HTTP/2 pings catch a dead connection under the stream too (the handler allows no less than a second); the
            // heartbeat remains the check that the peer itself answers.
            KeepAlivePingDelay = Max(options.HeartbeatInterval, TimeSpan.FromSeconds(1)),
            KeepAlivePingTimeout = Max(options.ReadIdleTimeout, TimeSpan.FromSeconds(1)),
            KeepAlivePingPolicy = HttpKeepAlivePingPolicy.WithActiveRequests,
        };
        if (options.TrustedServerCertificate is { } trusted)
        {
            var pinned = trusted.GetCertHash(HashAlgorithmName.SHA256);
            handler.SslOptions.RemoteCertificateValidationCallback = (_, certificate, _, errors) =>
                errors == SslPolicyErrors.None
                || (certificate is not null && CryptographicOperations.FixedTimeEquals(certificate.GetCertHash(HashAlgorithmName.SHA256), pinned));
        }

        return handler;
    }

    private static TimeSpan Max(TimeSpan a, TimeSpan b) => a > b ? a : b;

    private static string Describe(Exception? error) => error is null ? string.Empty : $" (last error: {error.Message})";

    private static PeerDeliveryException? Permanent(Exception? error, Uri address)
    {
        if (Untrusted(error) is { } untrusted)
        {
            return new PeerDeliveryException(
                PeerDeliveryFailure.UntrustedCertificate,
                $"The TLS certificate of the server at {address} is not trusted: {untrusted.Message} Trust it through the system's authorities, or pin it with PeerClientOptions.TrustedServerCertificate.",
                error);
        }

        if (error is RpcException refused && refused.Trailers.GetValue(PeerHeaders.Refusal) == PeerHeaders.Permanent)
        {
            return new PeerDeliveryException(PeerDeliveryFailure.Refused, $"The server at {address} refused this client's stream for good: {refused.Status.Detail}", refused);
        }

        return error is RpcException rpc
            ? rpc.StatusCode switch
            {
                StatusCode.Unauthenticated or StatusCode.PermissionDenied => new PeerDeliveryException(
                    PeerDeliveryFailure.Unauthenticated, $"The server at {address} refused this client's credentials: {rpc.Status.Detail}", rpc),
                StatusCode.Unimplemented => new PeerDeliveryException(
                    PeerDeliveryFailure.Unsupported, $"The server at {address} does not serve the peer protocol: {rpc.Status.Detail}", rpc),
                _ => null,
            }
            : null;
    }

    // The TLS handshake's refusal of the server's certificate, wherever gRPC and HTTP wrapped it: no retry fixes it.
    private static System.Security.Authentication.AuthenticationException? Untrusted(Exception? error)
    {
        for (var depth = 0; error is not null && depth < 8; depth++)
        {
            if (error is System.Security.Authentication.AuthenticationException authentication)
            {
                return authentication;
            }

            error = error is RpcException { Status.DebugException: { } debug } && error.InnerException is null ? debug : error.InnerException;
        }

        return null;
    }

    private PeerDeliveryException Closed(string message) => new(PeerDeliveryFailure.Closed, $"{message} ({Address})");

    // The error of a send the buffer refused: the client was closed before, or while, it waited for room.
    private PeerDeliveryException Refusal() => _fault ?? Closed("The client was completed or disposed; the message was not sent.");

    // Takes no more sends; those still waiting for room fail now and were never sent.
    private void CompleteBuffer()
    {
        var refused = _buffer.Complete();
        if (refused.Count == 0)
        {
            return;
        }

        var error = Refusal();
        foreach (var send in refused)
        {
            send.Refuse(error);
        }
    }

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
                    if (Permanent(error, Address) is { } fault)
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
                    if (Permanent(cause, Address) is { } fault)
                    {
                        Fault(fault);
                        return;
                    }

                    _lastError = cause;
                    Interlocked.Increment(ref _reconnects);
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
        _channel = CreateChannel(Address, _options);
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
                    $"The message (sequence {send.Sequence}) was written {send.Writes} times to {Address} and each stream broke before its reply{Describe(_lastError)}.",
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

    private void TimeOut(PendingSend send)
    {
        if (send.Fail(new PeerDeliveryException(
            PeerDeliveryFailure.Timeout,
            $"No reply from {Address} within {_options.DeliveryTimeout.TotalSeconds:0.###} s{Describe(_lastError)}.",
            _lastError)))
        {
            Interlocked.Increment(ref _timedOut);
        }
    }

    // The sweeper, on a timer: carries on with async replies a blocking continuation holds up, fails sends past their
    // deadline, asks for a heartbeat when the stream is quiet, and drops a stream that stayed silent through heartbeats
    // (half-open).
    private void Sweep()
    {
        _replies?.CheckProgress();
        var now = Environment.TickCount64;
        if (_pending.RemoveExpired(now) is { } expired)
        {
            foreach (var send in expired)
            {
                TimeOut(send);
            }
        }

        if (Volatile.Read(ref _connection) is not { } connection)
        {
            return;
        }

        var quiet = now - connection.LastRead;
        if (quiet >= (long)_options.ReadIdleTimeout.TotalMilliseconds)
        {
            Interlocked.Increment(ref _halfOpen);
            connection.HalfOpen = true;
            connection.Break(new TimeoutException(
                $"Nothing was read from {Address} for {quiet:N0} ms although heartbeats were sent: the stream is taken as half-open."));
        }
        else if (connection.RequestPingIfQuiet(now, (long)_options.HeartbeatInterval.TotalMilliseconds))
        {
            _buffer.TryAdd(HeartbeatWake);
        }
    }
}
