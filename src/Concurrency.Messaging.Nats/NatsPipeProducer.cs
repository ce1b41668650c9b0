using System.Diagnostics;
using NATS.Client.Core;
using NATS.Client.JetStream;

namespace Concurrency.Messaging.Nats;

/// <summary>
/// The producer side of a pipe over NATS: posts messages as to a pipe, each with this producer's identity and the next
/// sequence number, and ends with an end marker that tells consumers how many it posted.
/// </summary>
/// <typeparam name="T">The message type, written by the connection's serializer or the one given.</typeparam>
/// <remarks>
/// <para>
/// One producer is one sequence: its posts must not overlap (an overlapping call throws). Use one producer per thread
/// that posts. Its identity is random and new for every producer: a process that restarts is a new producer.
/// </para>
/// <para>
/// <see cref="NatsDelivery.Core"/>: a post hands the message to the connection's write buffer and returns; the server
/// delivers it at most once. <see cref="NatsDelivery.JetStream"/>: a post starts the message's publish and returns while
/// fewer than <see cref="NatsPipeOptions.PublishWindow"/> publishes await the server's confirmation, else waits for
/// one; a publish not confirmed (the server gone, a reconnect) is resent under the same message id, which the server
/// stores once, for up to <see cref="NatsPipeOptions.ServerTimeout"/>, after which the producer faults.
/// </para>
/// <para>The connection is the caller's: its URL, credentials and TLS are NATS.Net's options; disposing the producer leaves it open.</para>
/// </remarks>
public sealed class NatsPipeProducer<T> : IAsyncDisposable
{
    private static readonly TimeSpan ResendDelay = TimeSpan.FromMilliseconds(100);
    private static readonly TimeSpan[] CoreMarkerRepeats = [TimeSpan.Zero, TimeSpan.FromMilliseconds(250), TimeSpan.FromMilliseconds(750)]; // the pause before each send
    private static readonly TimeSpan AttemptLimit = TimeSpan.FromSeconds(2); // one publish's wait for its answer before it is sent again

    private readonly NatsConnection _connection;
    private readonly NatsJSContext? _js;
    private readonly NatsPipeOptions _options;
    private readonly Envelope.Writer<T> _writer;
    private readonly ulong _producer;
    private readonly string _endSubject;
    private readonly string _idPrefix;                // JetStream: what this producer's message ids start with
    private readonly SemaphoreSlim? _window;          // JetStream: one permit per publish awaiting confirmation
    private readonly CancellationTokenSource _stop = new(); // cancels every publish still resending: a fault, or disposal
    private readonly PublishWatchdog? _watchdog;     // JetStream: ends attempts nothing answers
    private long _posted;
    private long _confirmed;
    private long _resends;
    private int _posting;       // 1 while a post runs: posts must not overlap
    private int _state;         // 0 open, 1 completing or completed, 2 disposed
    private Exception? _fault;  // the first publish that failed for good

    private NatsPipeProducer(NatsConnection connection, NatsJSContext? js, NatsPipeOptions options, INatsSerialize<T> serializer)
    {
        _connection = connection;
        _js = js;
        _options = options;
        _writer = new Envelope.Writer<T>(serializer);
        _producer = (ulong)Random.Shared.NextInt64(long.MinValue, long.MaxValue);
        _endSubject = Envelope.EndSubject(options.Subject);
        _idPrefix = Envelope.MessageIdPrefix(_producer);
        _window = js is null ? null : new SemaphoreSlim(options.PublishWindow, options.PublishWindow);
        _watchdog = js is null ? null : new PublishWatchdog(AttemptLimit < options.ServerTimeout ? AttemptLimit : options.ServerTimeout, _stop.Token);
    }

    /// <summary>Gets this producer's identity, as consumers' counts name it (16 hexadecimal digits).</summary>
    public string ProducerId => Envelope.ProducerName(_producer);

    /// <summary>Gets how many messages were posted.</summary>
    public long Posted => Volatile.Read(ref _posted);

    /// <summary>Gets how many messages the server confirmed stored (JetStream); for Core, how many were posted.</summary>
    public long Confirmed => _js is null ? Posted : Volatile.Read(ref _confirmed);

    /// <summary>Gets how many times a JetStream publish was sent again because it was not confirmed.</summary>
    public long Resends => Volatile.Read(ref _resends);

    /// <summary>Sets the producer up; called by <see cref="NatsPipe.StartProducerAsync{T}"/>.</summary>
    internal static async Task<NatsPipeProducer<T>> StartAsync(NatsConnection connection, NatsPipeOptions options, INatsSerialize<T>? serializer, CancellationToken cancellationToken)
    {
        var (js, _) = await NatsSetup.ConnectAsync(connection, options, cancellationToken).ConfigureAwait(false);
        return new NatsPipeProducer<T>(connection, js, options, serializer ?? connection.Opts.SerializerRegistry.GetSerializer<T>());
    }

    /// <summary>Posts a message: Core, into the connection's buffer; JetStream, waiting while the publish window is full.</summary>
    /// <param name="message">The message.</param>
    /// <param name="cancellationToken">Cancels the wait for the connection or for the window; the message is then not posted.</param>
    /// <exception cref="InvalidOperationException">Another post of this producer is running, or it was completed or disposed.</exception>
    /// <exception cref="NatsPipeException">A JetStream publish failed for good; nothing more is posted.</exception>
    public ValueTask PostAsync(T message, CancellationToken cancellationToken = default)
    {
        if (Interlocked.Exchange(ref _posting, 1) != 0)
        {
            throw new InvalidOperationException("Posts of one producer must not overlap: it is one sequence. Use a producer per posting thread.");
        }

        var posted = false;
        try
        {
            ThrowIfClosed();
            if (_js is null)
            {
                // Counted as posted once the connection took it (Core cannot tell more); a post that failed leaves its
                // sequence number to the next, so no consumer reports a loss for a message the caller was told failed.
                var sequence = _posted + 1;
                var publish = _connection.PublishAsync(_options.Subject, new Outgoing<T>(EnvelopeKind.Data, _producer, sequence, message), serializer: _writer, cancellationToken: cancellationToken);
                if (publish.IsCompletedSuccessfully)
                {
                    Volatile.Write(ref _posted, sequence);
                    return default;
                }

                posted = true;
                return AfterPublish(publish, sequence);
            }

            posted = true;
            return PostJetStreamAsync(message, cancellationToken);
        }
        finally
        {
            if (!posted)
            {
                Volatile.Write(ref _posting, 0);
            }
        }
    }

    /// <summary>
    /// Ends this producer: (JetStream) waits until the server confirmed every message, then publishes the end marker
    /// that tells consumers how many messages this producer posted, and waits until the server has it. Core: the marker
    /// is at most once like every message, so it goes out three times over about a second (a consumer re-subscribing
    /// after a reconnect may miss one); a consumer that misses all three does not complete by itself (see docs/nats.md).
    /// </summary>
    /// <param name="cancellationToken">Cancels the wait; the producer is then neither completed nor usable.</param>
    /// <exception cref="InvalidOperationException">The producer was completed or disposed already.</exception>
    /// <exception cref="NatsPipeException">A JetStream publish failed for good, or the server did not take the end marker within <see cref="NatsPipeOptions.ServerTimeout"/>.</exception>
    public async Task CompleteAsync(CancellationToken cancellationToken = default)
    {
        if (Interlocked.CompareExchange(ref _state, 1, 0) != 0)
        {
            throw new InvalidOperationException("The producer was completed or disposed already.");
        }

        if (_window is not null)
        {
            // Every permit back means no publish awaits confirmation; a failed one has faulted the producer.
            var held = 0;
            try
            {
                for (; held < _options.PublishWindow; held++)
                {
                    await _window.WaitAsync(cancellationToken).ConfigureAwait(false);
                }
            }
            finally
            {
                if (held > 0)
                {
                    _window.Release(held);
                }
            }

            ThrowIfFaulted();
            var stored = await PublishUntilConfirmedAsync(_endSubject, new Outgoing<T>(EnvelopeKind.End, _producer, Posted, default!), $"{_producer:x16}.end", cancellationToken).ConfigureAwait(false);
            ThrowIfFaulted();
            cancellationToken.ThrowIfCancellationRequested();
            if (!stored)
            {
                throw new ObjectDisposedException(GetType().Name, "The producer was disposed before the server confirmed its end marker.");
            }

            return;
        }

        // Core's end marker is at most once too: a consumer whose connection is re-subscribing misses it. It goes out
        // again after a pause, twice; a consumer counts a producer's marker once.
        var marker = new Outgoing<T>(EnvelopeKind.End, _producer, Posted, default!);
        foreach (var pause in CoreMarkerRepeats)
        {
            await Task.Delay(pause, cancellationToken).ConfigureAwait(false);
            await _connection.PublishAsync(_endSubject, marker, serializer: _writer, cancellationToken: cancellationToken).ConfigureAwait(false);

            // A round trip: the server has read everything this connection sent before it.
            try
            {
                await _connection.PingAsync(cancellationToken).AsTask().WaitAsync(_options.ServerTimeout, cancellationToken).ConfigureAwait(false);
            }
            catch (TimeoutException e)
            {
                throw new NatsPipeException($"The server at {NatsSetup.Redacted(_connection.Opts.Url)} did not answer within {_options.ServerTimeout.TotalSeconds:0.#} s after the end marker.", e);
            }
        }
    }

    /// <summary>
    /// Stops the producer without an end marker: JetStream publishes still unconfirmed stop being resent (the server may
    /// or may not have stored them). The connection stays open.
    /// </summary>
    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _state, 2) == 2)
        {
            return;
        }

        await _stop.CancelAsync().ConfigureAwait(false);
        if (_watchdog is not null)
        {
            await _watchdog.DisposeAsync().ConfigureAwait(false);
        }

        if (_window is not null)
        {
            // Wait, bounded, for the publishes to see the cancellation and give their permits back.
            using var bound = new CancellationTokenSource(_options.ServerTimeout);
            try
            {
                for (var i = 0; i < _options.PublishWindow; i++)
                {
                    await _window.WaitAsync(bound.Token).ConfigureAwait(false);
                }
            }
            catch (OperationCanceledException)
            {
                return; // a publish stuck in the client past the bound ends with the connection; its token stays usable
            }
        }

        _stop.Dispose();
    }

    private async ValueTask AfterPublish(ValueTask publish, long sequence)
    {
        try
        {
            await publish.ConfigureAwait(false);
            Volatile.Write(ref _posted, sequence);
        }
        finally
        {
            Volatile.Write(ref _posting, 0);
        }
    }

    private async ValueTask PostJetStreamAsync(T message, CancellationToken cancellationToken)
    {
        try
        {
            await _window!.WaitAsync(cancellationToken).ConfigureAwait(false);
            if (_fault is not null || _state != 0)
            {
                _window.Release();
                ThrowIfClosed();
            }

            var sequence = _posted + 1;
            Volatile.Write(ref _posted, sequence);
            _ = PublishUntilConfirmedAsync(_options.Subject, new Outgoing<T>(EnvelopeKind.Data, _producer, sequence, message), Envelope.MessageId(_idPrefix, sequence), CancellationToken.None, inWindow: true);
        }
        finally
        {
            Volatile.Write(ref _posting, 0);
        }
    }

    /// <summary>Publishes until the server confirms, resending under the same id; faults the producer if it cannot.</summary>
    /// <remarks>
    /// <para>
    /// A publish <paramref name="inWindow"/> holds a permit of the window, given back when it ends however it ends, and
    /// nothing awaits it: whatever it throws faults the producer. (One method for both, so that a post costs one
    /// asynchronous step, not two.)
    /// </para>
    /// <para>An attempt waits until the server answers or the <see cref="PublishWatchdog"/> ends it (after <see cref="AttemptLimit"/>, or the server timeout where shorter, with no answer).</para>
    /// </remarks>
    /// <returns>Whether the server stored it (false: the producer faulted, was disposed, or the caller cancelled).</returns>
    private async Task<bool> PublishUntilConfirmedAsync(string subject, Outgoing<T> message, string id, CancellationToken cancellationToken, bool inWindow = false)
    {
        try
        {
            var options = new NatsJSPubOpts { MsgId = id };
            var started = Stopwatch.GetTimestamp();
            while (true)
            {
                var attempt = _watchdog!.Begin(); // ended by the stop too: a fault or disposal ends every attempt
                Exception? unanswered;
                try
                {
                    using var caller = cancellationToken.CanBeCanceled ? CancellationTokenSource.CreateLinkedTokenSource(attempt, cancellationToken) : null;
                    var ack = await _js!.PublishAsync(subject, message, _writer, options, cancellationToken: caller?.Token ?? attempt).ConfigureAwait(false);
                    _watchdog.Answered();
                    if (ack.Error is { Code: not 503 } error)
                    {
                        Fault(new NatsPipeException($"The server refused message {message.Sequence} of producer {ProducerId}: {error.Description} ({error.ErrCode})."));
                        return false;
                    }

                    if (ack.Error is null)
                    {
                        if (message.Kind == EnvelopeKind.Data)
                        {
                            Interlocked.Increment(ref _confirmed);
                        }

                        return true;
                    }

                    unanswered = new NatsPipeException($"The server is not ready for message {message.Sequence}: {ack.Error.Description} ({ack.Error.ErrCode})."); // 503: JetStream not yet back
                }
                catch (OperationCanceledException) when (_stop.IsCancellationRequested || cancellationToken.IsCancellationRequested)
                {
                    return false; // disposed, faulted, or the caller's completion cancelled
                }
                catch (OperationCanceledException e)
                {
                    unanswered = e; // the watchdog ended this generation of attempts
                }
                catch (NatsJSApiException e) when (e.Error.Code != 503)
                {
                    Fault(new NatsPipeException($"The server refused message {message.Sequence} of producer {ProducerId}: {e.Error.Description} ({e.Error.ErrCode}).", e));
                    return false;
                }
                catch (Exception e) when (e is NatsException or TimeoutException)
                {
                    unanswered = e;
                }
                finally
                {
                    _watchdog.End();
                }

                // No answer (the server gone, restarting, or its answer lost): send it again under the same id.
                if (Stopwatch.GetElapsedTime(started) > _options.ServerTimeout)
                {
                    Fault(new NatsPipeException($"Message {message.Sequence} of producer {ProducerId} was not confirmed by the server at {NatsSetup.Redacted(_connection.Opts.Url)} within {_options.ServerTimeout.TotalSeconds:0.#} s.", unanswered));
                    return false;
                }

                Interlocked.Increment(ref _resends);
                try
                {
                    await Task.Delay(ResendDelay, _stop.Token).ConfigureAwait(false);
                }
                catch (OperationCanceledException)
                {
                    return false;
                }
            }
        }
#pragma warning disable CA1031 // nothing awaits a publish in the window: whatever it throws (the serializer, the client) faults the producer, never vanishes
        catch (Exception e) when (inWindow)
#pragma warning restore CA1031
        {
            Fault(e);
            return false;
        }
        finally
        {
            if (inWindow)
            {
                _window!.Release();
            }
        }
    }

    private void Fault(Exception fault)
    {
        if (Interlocked.CompareExchange(ref _fault, fault, null) is null && _state != 2)
        {
            _stop.Cancel(); // nothing more will be confirmed in order: stop resending the rest (every generation is linked)
        }
    }

    private void ThrowIfFaulted()
    {
        if (_fault is { } fault)
        {
            throw new NatsPipeException($"The producer faulted: {fault.Message} {Posted - Confirmed} of its {Posted} messages are not confirmed.", fault);
        }
    }

    private void ThrowIfClosed()
    {
        ThrowIfFaulted();
        if (_state != 0)
        {
            throw new InvalidOperationException("The producer was completed or disposed.");
        }
    }
}
