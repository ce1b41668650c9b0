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
/// <para>
/// The parts, each a type with its own state: this class is the caller's path; <see cref="PeerPump"/> the write side
/// (buffer to stream writes, reconnects and resends); <see cref="PeerListener"/> the read side (replies to settled
/// sends); <see cref="PeerSweeper"/> the timer (deadlines, heartbeats, half-open streams). What more than one of them
/// sees is in <see cref="PeerClientState"/>, whose remarks state its concurrency rule.
/// </para>
/// </remarks>
public sealed class PeerClient : IAsyncDisposable
{
    // Room for an envelope's sequence number, tag and length prefix beside PeerMessage.WireSize.
    private const int EnvelopeOverhead = 16;

    private readonly PeerClientState _state;
    private readonly PeerPump _pump;
    private readonly PeerSweeper _sweeper;

    // The caller's path per message: copied from _state (set once, never changed), so that a send reads them here.
    private readonly PeerClientOptions _options;
    private readonly SendBuffer _buffer;
    private readonly InOrderDelivery? _delivery;
    private readonly ReplyDelivery? _replies;
    private readonly long _deliveryTimeoutMs;

    // 1 once disposed: set by DisposeAsync (Interlocked), so that disposing twice is once. Completing needs no flag: the
    // completed buffer is what tells the pump to finish.
    private int _disposed;

    private PeerClient(Uri address, PeerClientOptions options)
    {
        Address = address;
        _options = options;
        _deliveryTimeoutMs = (long)options.DeliveryTimeout.TotalMilliseconds;
        _state = new PeerClientState(address, options);
        _buffer = _state.Buffer;
        _delivery = _state.Delivery;
        _replies = _state.Replies;
        _sweeper = new PeerSweeper(_state);
        _pump = new PeerPump(_state, new PeerListener(_state), _sweeper);
    }

    /// <summary>Gets the server's address.</summary>
    public Uri Address { get; }

    /// <summary>Gets how this client sends and hands back replies.</summary>
    public PeerMode Mode => _options.Mode;

    /// <summary>Gets how many times a broken stream was replaced by a new one.</summary>
    public long ReconnectCount => _pump.ReconnectCount;

    /// <summary>Gets how many messages were written again on a new stream because the old one broke before their reply.</summary>
    public long ResentCount => _pump.ResentCount;

    /// <summary>Gets how many sends failed with <see cref="PeerDeliveryFailure.Timeout"/>.</summary>
    public long TimedOutCount => _state.TimedOutCount;

    /// <summary>Gets how many batches (stream writes) the pump wrote, heartbeats included.</summary>
    public long WriteCount => _pump.WriteCount;

    /// <summary>Gets how many messages the pump wrote, resends included; <see cref="WrittenCount"/> ÷ <see cref="WriteCount"/> is the mean batch.</summary>
    public long WrittenCount => _pump.WrittenCount;

    /// <summary>Gets how many streams were dropped as half-open: nothing read for <see cref="PeerClientOptions.ReadIdleTimeout"/>.</summary>
    public long HalfOpenCount => _sweeper.HalfOpenCount;

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
        options ??= new PeerClientOptions();
        options.Validate();
        return new PeerClient(CheckAddress(address, options, nameof(address)), options);
    }

    /// <summary>
    /// The address a client with <paramref name="options"/> (already valid) would connect to: an absolute http or https
    /// address with a host, over which the options' token does not cross a network in clear text. For those who check
    /// addresses before they make clients (the sequence client and replicas, at their creation).
    /// </summary>
    /// <exception cref="ArgumentException">It is not such an address, named <paramref name="parameter"/>.</exception>
    internal static Uri CheckAddress(string address, PeerClientOptions options, string parameter)
    {
        if (!Uri.TryCreate(address, UriKind.Absolute, out var uri)
            || (uri.Scheme != Uri.UriSchemeHttp && uri.Scheme != Uri.UriSchemeHttps)
            || uri.Host.Length == 0)
        {
            throw new ArgumentException($"'{address}' is not an absolute http:// or https:// address (for example http://127.0.0.1:5000).", parameter);
        }

        PeerCredentials.RefuseClearText(uri, options.BearerToken, options.AllowInsecureCredentials, parameter);
        return uri;
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
            await client._pump.FirstStream.WaitAsync(client._options.ConnectTimeout, cancellationToken).ConfigureAwait(false);
            return client;
        }
        catch (TimeoutException)
        {
            var last = client._state.LastError;
            await client.DisposeAsync().ConfigureAwait(false);
            throw new PeerDeliveryException(
                PeerDeliveryFailure.Timeout,
                $"Could not open a stream to {address} within {client._options.ConnectTimeout.TotalSeconds:0.###} s{StreamFailures.Describe(last)}.",
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

        if (_state.Fault is { } fault)
        {
            return Task.FromException<PeerMessage>(fault);
        }

        if (cancellationToken.IsCancellationRequested)
        {
            return Task.FromCanceled<PeerMessage>(cancellationToken);
        }

        // Traced, the envelope also carries the span's context: counted toward the batch's bytes.
        var span = PeerTracing.StartSend(message, Address);
        if (span is not null)
        {
            size += PeerWire.TraceContextSize(span);
        }

        var send = new PendingSend(message, size, Environment.TickCount64 + _deliveryTimeoutMs, _delivery, _replies) { Span = span, Started = PeerMeter.StartSend(), Address = Address };
        if (_buffer.Add(send) == SendAdmission.Closed)
        {
            var refusal = _state.Refusal();
            if (span is not null)
            {
                PeerTracing.EndSend(span, refusal, cancelled: false);
            }

            PeerMeter.EndSend(send.Started, Address, refusal, cancelled: false);

            return Task.FromException<PeerMessage>(refusal);
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
        _state.CompleteBuffer();
        try
        {
            await _pump.Completion.WaitAsync(cancellationToken).ConfigureAwait(false);
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
        if (Interlocked.Exchange(ref _disposed, 1) == 1)
        {
            return;
        }

        _state.CompleteBuffer();
        await _pump.StopAsync().ConfigureAwait(false);
        await _sweeper.DisposeAsync().ConfigureAwait(false);
        _pump.Dispose();
    }
}
