using System.Diagnostics;
using Concurrency.Messaging.Pipes;
using NATS.Client.Core;
using NATS.Client.JetStream;
using NATS.Client.JetStream.Models;

namespace Concurrency.Messaging.Nats;

/// <summary>
/// The consumer side of a pipe over NATS: subscribes (Core) or pulls from a durable consumer (JetStream) and runs the
/// handler on each message, one at a time, in the order they arrive.
/// </summary>
/// <typeparam name="T">The message type, read by the connection's deserializer or the one given.</typeparam>
/// <remarks>
/// <para>
/// <b>Core</b>: each message handled at most once. Every producer's sequence numbers are checked (with a subscription of
/// the consumer's own): a gap is reported through <see cref="NatsPipeOptions.LossReported"/> as it is found and counted
/// in <see cref="NatsPipeCounts.Lost"/>, and so is what a producer posted beyond the last message seen once its end marker
/// arrives. Consumers sharing a queue group each see part of every sequence; <see cref="NatsPipeCounts.Combine"/>
/// reconciles their counts.
/// </para>
/// <para>
/// <b>JetStream</b>: a message is acknowledged after its handler returned. The server delivers at least once (a lost
/// acknowledgement, or one not made within <see cref="NatsPipeOptions.AckWait"/>, brings the message back), so the
/// consumer remembers each producer's handled sequence numbers (<see cref="SequenceWindow"/>) and hands a message over
/// once while it lives. What it cannot tell apart is handed over and counted in <see cref="NatsPipeCounts.PossibleRepeats"/>:
/// a redelivered message it has not seen, which another consumer of the group, or this consumer's previous process that
/// crashed between handling and acknowledging, may have handled.
/// </para>
/// <para>
/// <see cref="Completion"/> finishes when <see cref="NatsPipeOptions.ExpectedProducers"/> producers have ended and
/// everything before their end markers was handled (or found missing), or when the consumer is stopped; it faults with
/// a <see cref="MessageHandlerException"/> if the handler throws (JetStream: that message stays unacknowledged, and the
/// server delivers it again to the group), or with a <see cref="NatsPipeException"/> if the server stays unreachable
/// longer than <see cref="NatsPipeOptions.ServerTimeout"/> (JetStream), or its subscription ends before the expected
/// producers did (Core: the connection was disposed).
/// </para>
/// <para>
/// JetStream keeps end markers in the stream: a consumer counts the markers stored after it started, and those of
/// producers whose messages it has handled; a marker of an earlier run whose messages its group had consumed before
/// (a stream reused from run to run) does not count, so it cannot complete a new run early.
/// </para>
/// <para>The connection is the caller's: disposing the consumer leaves it open.</para>
/// </remarks>
public sealed class NatsPipeConsumer<T> : IAsyncDisposable
{
    private static readonly TimeSpan GroupPoll = TimeSpan.FromMilliseconds(50);
    private static readonly TimeSpan RetryDelay = TimeSpan.FromMilliseconds(100);

    private readonly NatsConnection _connection;
    private readonly NatsPipeOptions _options;
    private readonly Func<T, CancellationToken, ValueTask> _handler;
    private readonly Envelope.Reader<T> _reader;
    private readonly CancellationTokenSource _stop = new();   // StopAsync, disposal: every wait ends
    private readonly TaskCompletionSource _completion = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly TaskCompletionSource _allEnded = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly Lock _gate = new();                      // guards the producers, the pending markers and _ended
    private readonly Dictionary<ulong, Producer> _producers = [];
    private readonly List<Producer> _order = [];
    private readonly Dictionary<ulong, long> _pendingMarkers = []; // JetStream: markers stored before the start, of producers not seen yet
    private readonly string _markerReader = $"ends-{Random.Shared.NextInt64():x16}"; // JetStream: the end markers' reader's name
    private long _handled;         // this and the counts below: written by the loop only, read by Counts
    private long _lost;
    private long _repeats;
    private long _possibleRepeats;
    private long _malformed;       // Interlocked: the JetStream markers' reader counts malformed markers too
    private long _refused;
    private long _unhandled;
    private int _ended;            // producers whose end marker counts (see the remarks)
    private ulong _startSequence;  // JetStream: the stream's last sequence when the consumer started
    private Task _run = Task.CompletedTask;
    private Producer? _loopLast;   // the loop's last producer (FindFromLoop): read and written by the loop only
    private int _disposed;         // 1 once DisposeAsync ran

    private NatsPipeConsumer(NatsConnection connection, NatsPipeOptions options, Func<T, CancellationToken, ValueTask> handler, INatsDeserialize<T> deserializer)
    {
        _connection = connection;
        _options = options;
        _handler = handler;
        _reader = new Envelope.Reader<T>(deserializer);
    }

    /// <summary>
    /// Gets a task that finishes once the expected producers ended and everything before their end markers was handled
    /// (or, Core, found missing), or once the consumer was stopped; see the remarks for its faults. When it has finished,
    /// <see cref="Counts"/> is final.
    /// </summary>
    public Task Completion => _completion.Task;

    /// <summary>Gets what the consumer has seen so far; final once <see cref="Completion"/> has finished.</summary>
    public NatsPipeCounts Counts
    {
        get
        {
            lock (_gate)
            {
                return new NatsPipeCounts
                {
                    Handled = Volatile.Read(ref _handled),
                    Lost = Volatile.Read(ref _lost),
                    Repeats = Volatile.Read(ref _repeats),
                    PossibleRepeats = Volatile.Read(ref _possibleRepeats),
                    Malformed = Volatile.Read(ref _malformed),
                    Refused = Volatile.Read(ref _refused),
                    Unhandled = Volatile.Read(ref _unhandled),
                    Producers = [.. _order.Select(p => new NatsProducerCounts(p.Name, p.Posted, Volatile.Read(ref p.Handled)))],
                };
            }
        }
    }

    /// <summary>Starts the consumer's loop; called once, by <see cref="NatsPipe.StartConsumerAsync{T}(NatsConnection, NatsPipeOptions, Func{T, CancellationToken, ValueTask}, INatsDeserialize{T}?, CancellationToken)"/>.</summary>
    internal static async Task<NatsPipeConsumer<T>> StartAsync(NatsConnection connection, NatsPipeOptions options, Func<T, CancellationToken, ValueTask> handler, INatsDeserialize<T>? deserializer, CancellationToken cancellationToken)
    {
        var (js, lastSequence) = await NatsSetup.ConnectAsync(connection, options, cancellationToken).ConfigureAwait(false);
        var consumer = new NatsPipeConsumer<T>(connection, options, handler, deserializer ?? connection.Opts.SerializerRegistry.GetDeserializer<T>());
        if (js is null)
        {
            INatsSub<Incoming<T>>? data = null, ends = null;
            try
            {
                data = await connection.SubscribeCoreAsync(options.Subject, options.Group, consumer._reader, cancellationToken: cancellationToken).ConfigureAwait(false);
                ends = await connection.SubscribeCoreAsync(Envelope.EndSubject(options.Subject), queueGroup: null, consumer._reader, cancellationToken: cancellationToken).ConfigureAwait(false);

                // A round trip: the server has both subscriptions before the first producer can be told to start.
                await consumer.WithinServerTimeout(connection.PingAsync(cancellationToken).AsTask(), "subscribing", cancellationToken).ConfigureAwait(false);
            }
            catch
            {
                // A subscription left behind would take its share of a queue group's messages with no one to count them.
                if (data is not null)
                {
                    await data.DisposeAsync().ConfigureAwait(false);
                }

                if (ends is not null)
                {
                    await ends.DisposeAsync().ConfigureAwait(false);
                }

                throw;
            }

            consumer._run = Task.Run(() => consumer.RunCoreAsync(data, ends), CancellationToken.None);
            return consumer;
        }

        consumer._startSequence = lastSequence;
        var config = new ConsumerConfig(options.Group!)
        {
            DurableName = options.Group,
            FilterSubject = options.Subject,
            AckPolicy = ConsumerConfigAckPolicy.Explicit,
            DeliverPolicy = ConsumerConfigDeliverPolicy.All,
            AckWait = options.AckWait,
            MaxAckPending = options.MaxAckPending,
        };
        var durable = await NatsSetup.AskAsync(connection, options, js.CreateOrUpdateConsumerAsync(options.StreamName, config, cancellationToken), $"the consumer '{options.Group}' on stream '{options.StreamName}'", string.Empty, cancellationToken).ConfigureAwait(false);
        consumer._run = Task.Run(() => consumer.RunJetStreamAsync(js, durable), CancellationToken.None);
        return consumer;
    }

    /// <summary>
    /// Stops consuming: the message being handled finishes (its handler's token is cancelled, and JetStream acknowledges
    /// it if the handler returned), nothing more is handed over, and <see cref="Completion"/> finishes unless it faulted.
    /// What was received and not handled is counted in <see cref="NatsPipeCounts.Unhandled"/> (Core: gone); JetStream
    /// leaves it unacknowledged, for the group to receive again.
    /// </summary>
    /// <param name="cancellationToken">Cancels the wait for the loop to end (the consumer still stops).</param>
    public async Task StopAsync(CancellationToken cancellationToken = default)
    {
        ObjectDisposedException.ThrowIf(Volatile.Read(ref _disposed) != 0, this);
        await _stop.CancelAsync().ConfigureAwait(false);
        await _run.WaitAsync(cancellationToken).ConfigureAwait(false);
    }

    /// <summary>Stops the consumer (see <see cref="StopAsync"/>), waiting at most <see cref="NatsPipeOptions.ServerTimeout"/> for its loop. A second call does nothing.</summary>
    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
        {
            return;
        }

        await _stop.CancelAsync().ConfigureAwait(false);
        try
        {
            await _run.WaitAsync(_options.ServerTimeout).ConfigureAwait(false);
        }
        catch (TimeoutException)
        {
            return; // a handler that ignores its token: the loop ends when it returns, and needs the token till then
        }

        _stop.Dispose();
    }

    private async Task RunCoreAsync(INatsSub<Incoming<T>> data, INatsSub<Incoming<T>> ends)
    {
        Exception? failure = null;
        Task<bool>? dataWait = null, endWait = null; // kept across idle turns: a wait left over is reused, not piled up
        try
        {
            while (true)
            {
                while (data.Msgs.TryRead(out var message))
                {
                    await OnCoreAsync(message.Data).ConfigureAwait(false);
                }

                var ended = false;
                while (ends.Msgs.TryRead(out var end))
                {
                    OnEnd(end.Data, stored: ulong.MaxValue);
                    ended = true;
                }

                if (ended)
                {
                    // Whatever the producer sent before its marker reached this connection before the marker did, so it
                    // is in the data subscription now: drain it before deciding anything.
                    continue;
                }

                if (AllEnded)
                {
                    FinishCore();
                    break;
                }

                dataWait ??= data.Msgs.WaitToReadAsync(_stop.Token).AsTask();
                endWait ??= ends.Msgs.WaitToReadAsync(_stop.Token).AsTask();
                await Task.WhenAny(dataWait, endWait).ConfigureAwait(false);
                if (dataWait.IsCompleted)
                {
                    if (!await dataWait.ConfigureAwait(false))
                    {
                        throw SubscriptionEnded();
                    }

                    dataWait = null;
                }

                if (endWait.IsCompleted)
                {
                    if (!await endWait.ConfigureAwait(false))
                    {
                        throw SubscriptionEnded();
                    }

                    endWait = null;
                }
            }
        }
        catch (OperationCanceledException) when (_stop.IsCancellationRequested)
        {
            // Stopped.
        }
        catch (HandlerFault fault)
        {
            failure = new MessageHandlerException(fault.InnerException!, 1 + data.Msgs.Count);
            Interlocked.Add(ref _unhandled, 1);
        }
#pragma warning disable CA1031 // the loop's end is the consumer's completion: whatever ends it is reported there
        catch (Exception e)
#pragma warning restore CA1031
        {
            failure = e;
        }
        finally
        {
            Interlocked.Add(ref _unhandled, data.Msgs.Count); // received, never handed over: Core keeps nothing
            await data.DisposeAsync().ConfigureAwait(false);
            await ends.DisposeAsync().ConfigureAwait(false);
        }

        Complete(failure);
    }

    private NatsPipeException SubscriptionEnded()
        => new($"The subscription to '{_options.Subject}' ended (its connection was disposed) before {_options.ExpectedProducers} producers had ended.");

    private async ValueTask OnCoreAsync(Incoming<T> message)
    {
        if (message.Kind != EnvelopeKind.Data)
        {
            Interlocked.Increment(ref _malformed);
            return;
        }

        if (FindFromLoop(message.Producer) is not { } producer)
        {
            Volatile.Write(ref _refused, _refused + 1);
            return;
        }

        if (_options.Group is null)
        {
            if (message.Sequence < producer.Next)
            {
                // Core neither resends nor reorders one connection's messages: this is another publisher using the
                // same identity, or a forged one. Not handed over.
                Interlocked.Increment(ref _malformed);
                return;
            }

            if (message.Sequence > producer.Next)
            {
                Report(producer, producer.Next, message.Sequence - 1);
            }

            producer.Next = message.Sequence + 1;
        }

        await Handle(message.Message).ConfigureAwait(false);
        Volatile.Write(ref producer.Handled, producer.Handled + 1);
        Volatile.Write(ref _handled, _handled + 1);
    }

    /// <summary>The expected producers all ended and everything before their markers was handled: what they posted beyond the last one seen is lost.</summary>
    private void FinishCore()
    {
        if (_options.Group is not null)
        {
            return; // a share of the work: only the group's combined counts can tell
        }

        foreach (var producer in _order)
        {
            if (producer.Posted is { } posted && posted >= producer.Next)
            {
                Report(producer, producer.Next, posted);
                producer.Next = posted + 1;
            }
        }
    }

    private void Report(Producer producer, long first, long last)
    {
        Volatile.Write(ref _lost, _lost + (last - first + 1));
        _options.LossReported?.Invoke(new NatsLoss(producer.Name, first, last));
    }

    private async Task RunJetStreamAsync(NatsJSContext js, INatsJSConsumer durable)
    {
        using var drained = new CancellationTokenSource(); // the group has nothing left: the pull ends
        using var linked = CancellationTokenSource.CreateLinkedTokenSource(_stop.Token, drained.Token);
        var markers = Task.Run(() => ReadMarkersAsync(js), CancellationToken.None);
        var watcher = Task.Run(() => WatchGroupAsync(durable, drained), CancellationToken.None);
        Exception? failure = null;
        try
        {
            var failingSince = (long?)null;
            while (!linked.IsCancellationRequested)
            {
                try
                {
                    await foreach (var message in durable.ConsumeAsync(_reader, cancellationToken: linked.Token).ConfigureAwait(false))
                    {
                        failingSince = null;
                        await OnJetStreamAsync(message).ConfigureAwait(false);
                    }

                    // The pull ended without a word: pull again, as after an error.
                    failingSince = await Failing(failingSince, null, linked.Token).ConfigureAwait(false);
                }
                catch (OperationCanceledException) when (linked.IsCancellationRequested)
                {
                    break;
                }
                catch (NatsException e)
                {
                    // The pull broke (the server restarting, JetStream not yet back): pull again, for a bounded time.
                    failingSince = await Failing(failingSince, e, linked.Token).ConfigureAwait(false);
                }
            }
        }
        catch (OperationCanceledException) when (linked.IsCancellationRequested)
        {
            // Stopped, or the group is done.
        }
        catch (HandlerFault fault)
        {
            failure = new MessageHandlerException(fault.InnerException!, 1);
            Interlocked.Increment(ref _unhandled);
        }
#pragma warning disable CA1031 // the loop's end is the consumer's completion: whatever ends it is reported there
        catch (Exception e)
#pragma warning restore CA1031
        {
            failure = e;
        }

        // The markers' reader and the watcher end with the loop; what either failed with is the consumer's fault, and
        // the counts are final only once both have stopped.
        await _stop.CancelAsync().ConfigureAwait(false);
        foreach (var background in new[] { markers, watcher })
        {
            try
            {
                await background.ConfigureAwait(false);
            }
#pragma warning disable CA1031 // reported through the completion
            catch (Exception e)
#pragma warning restore CA1031
            {
                failure ??= e;
            }
        }

        Complete(failure);
    }

    /// <summary>Waits before pulling again; faults once the pulls have failed for longer than the server timeout.</summary>
    private async Task<long?> Failing(long? since, Exception? error, CancellationToken cancellationToken)
    {
        since ??= Stopwatch.GetTimestamp();
        if (Stopwatch.GetElapsedTime(since.Value) > _options.ServerTimeout)
        {
            var message = $"The consumer '{_options.Group}' could not pull from the server at {NatsSetup.Redacted(_connection.Opts.Url)} for {_options.ServerTimeout.TotalSeconds:0.#} s.";
            throw error is null ? new NatsPipeException(message) : new NatsPipeException(message, error);
        }

        await Task.Delay(RetryDelay, cancellationToken).ConfigureAwait(false);
        return since;
    }

    private void Complete(Exception? failure)
    {
        if (failure is null)
        {
            _completion.TrySetResult();
        }
        else
        {
            _completion.TrySetException(failure);
        }
    }

    private async ValueTask OnJetStreamAsync(INatsJSMsg<Incoming<T>> message)
    {
        var incoming = message.Data;
        if (incoming.Kind != EnvelopeKind.Data)
        {
            Interlocked.Increment(ref _malformed);
            await Settle(message.AckTerminateAsync(cancellationToken: _stop.Token)).ConfigureAwait(false); // the stream keeps it; this group will not see it again
            return;
        }

        if (FindFromLoop(incoming.Producer) is not { } producer)
        {
            // Beyond the producers this consumer tracks: given back, for the group to deliver again (and a member with
            // room to take), never dropped.
            Volatile.Write(ref _refused, _refused + 1);
            await Settle(message.NakAsync(cancellationToken: _stop.Token)).ConfigureAwait(false);
            return;
        }

        switch (producer.Window!.Check(incoming.Sequence))
        {
            case SequenceVerdict.Repeat:
                Volatile.Write(ref _repeats, _repeats + 1);
                await Settle(message.AckAsync(cancellationToken: _stop.Token)).ConfigureAwait(false);
                return;
            case SequenceVerdict.Unknown:
                Volatile.Write(ref _possibleRepeats, _possibleRepeats + 1);
                break;
            default:
                // Delivered before (to this group), or older than a message of its producer this consumer has handled: a
                // stream delivers a producer's messages in order, so this one comes again (a redelivery, also one the
                // server no longer knows it made after a crash lost the consumer's state), or was resent and stored late.
                if (incoming.Sequence < producer.Window.Highest || Redelivered(message))
                {
                    Volatile.Write(ref _possibleRepeats, _possibleRepeats + 1);
                }

                break;
        }

        await Handle(incoming.Message).ConfigureAwait(false);
        producer.Window.Mark(incoming.Sequence);
        Volatile.Write(ref producer.Handled, producer.Handled + 1);
        Volatile.Write(ref _handled, _handled + 1);

        // Handled: acknowledged even while stopping, so that a stop does not bring it back for a second handling.
        await Settle(message.AckAsync(cancellationToken: _stop.IsCancellationRequested ? CancellationToken.None : _stop.Token)).ConfigureAwait(false);
    }

    /// <summary>
    /// Whether the server delivered <paramref name="message"/> before: its delivery count, read from the acknowledgement
    /// subject (<c>$JS.ACK.stream.consumer.delivered.…</c>, nine tokens; or with a domain and an account hash in front,
    /// eleven or more) without building the client's whole metadata for every message; the client's for any other form.
    /// </summary>
    internal static bool Redelivered<TMessage>(INatsJSMsg<TMessage> message)
    {
        var reply = message.ReplyTo.AsSpan();
        var tokens = reply.Count('.') + 1;
        var index = tokens == 9 ? 4 : tokens >= 11 ? 6 : -1;
        if (index < 0 || !reply.StartsWith("$JS.ACK.", StringComparison.Ordinal))
        {
            return message.Metadata is { NumDelivered: > 1 };
        }

        for (var i = 0; i < index; i++)
        {
            reply = reply[(reply.IndexOf('.') + 1)..];
        }

        var end = reply.IndexOf('.');
        return !(end == 1 && reply[0] == '1');
    }

    /// <summary>
    /// An acknowledgement that cannot be sent (the connection down) is not retried: the server delivers the message
    /// again, and the window hands it over no second time.
    /// </summary>
    private static async ValueTask Settle(ValueTask acknowledgement)
    {
        try
        {
            await acknowledgement.ConfigureAwait(false);
        }
        catch (NatsException)
        {
        }
        catch (OperationCanceledException)
        {
            // Stopping: the server delivers it again, as after a lost acknowledgement.
        }
    }

    /// <summary>
    /// The end markers' reader: a named ephemeral pull consumer of its own over the end subject, from the stream's start,
    /// that acknowledges nothing. Not an ordered consumer, whose filter travels as a list that servers before 2.10 ignore
    /// (see docs/nats.md). Made again after the server restarts (an ephemeral consumer may not survive it); markers read
    /// twice count once.
    /// </summary>
    private ValueTask<INatsJSConsumer> MarkerReaderAsync(NatsJSContext js, CancellationToken cancellationToken)
        => js.CreateOrUpdateConsumerAsync(
            _options.StreamName,
            new ConsumerConfig
            {
                // Named: an anonymous one with this filter was refused by 2.9 ("did not match filtered subject from create subject").
                Name = _markerReader,
                FilterSubject = Envelope.EndSubject(_options.Subject),
                AckPolicy = ConsumerConfigAckPolicy.None,
                DeliverPolicy = ConsumerConfigDeliverPolicy.All,
                InactiveThreshold = TimeSpan.FromMinutes(1),
            },
            cancellationToken);

    private async Task ReadMarkersAsync(NatsJSContext js)
    {
        while (!_stop.IsCancellationRequested)
        {
            try
            {
                var ends = await MarkerReaderAsync(js, _stop.Token).ConfigureAwait(false);
                await foreach (var marker in ends.ConsumeAsync(_reader, cancellationToken: _stop.Token).ConfigureAwait(false))
                {
                    OnEnd(marker.Data, marker.Metadata?.Sequence.Stream ?? ulong.MaxValue);
                }
            }
            catch (OperationCanceledException) when (_stop.IsCancellationRequested)
            {
                return;
            }
            catch (NatsException)
            {
                await Task.Delay(RetryDelay, _stop.Token).ContinueWith(static _ => { }, CancellationToken.None, TaskContinuationOptions.None, TaskScheduler.Default).ConfigureAwait(false);
            }
        }
    }

    /// <summary>
    /// Once every expected producer ended (all their messages confirmed stored before their markers), the group is done
    /// when its durable consumer has nothing left to deliver and nothing delivered unacknowledged: then the pull ends.
    /// </summary>
    private async Task WatchGroupAsync(INatsJSConsumer durable, CancellationTokenSource drained)
    {
        try
        {
            await _allEnded.Task.WaitAsync(_stop.Token).ConfigureAwait(false);
            long? failingSince = null;
            while (true)
            {
                await Task.Delay(GroupPoll, _stop.Token).ConfigureAwait(false);
                try
                {
                    await durable.RefreshAsync(_stop.Token).ConfigureAwait(false);
                    failingSince = null;
                }
                catch (NatsException e)
                {
                    // The server restarting: ask again, for a bounded time (the durable consumer deleted never answers).
                    failingSince ??= Stopwatch.GetTimestamp();
                    if (Stopwatch.GetElapsedTime(failingSince.Value) > _options.ServerTimeout)
                    {
                        throw new NatsPipeException($"The consumer '{_options.Group}' could not read its state from the server at {NatsSetup.Redacted(_connection.Opts.Url)} for {_options.ServerTimeout.TotalSeconds:0.#} s.", e);
                    }

                    continue;
                }

                if (durable.Info.NumPending == 0 && durable.Info.NumAckPending == 0)
                {
                    await drained.CancelAsync().ConfigureAwait(false);
                    return;
                }
            }
        }
        catch (OperationCanceledException) when (_stop.IsCancellationRequested)
        {
        }
    }

    private async ValueTask Handle(T message)
    {
        try
        {
            await _handler(message, _stop.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (_stop.IsCancellationRequested)
        {
            throw; // stopping: the handler gave up its message as asked (JetStream: unacknowledged, delivered again)
        }
        catch (Exception e)
        {
            throw new HandlerFault(e);
        }
    }

    /// <summary>
    /// An end marker: counts once per producer, at once if it was stored after this consumer started (Core: always) or
    /// its producer's messages were seen here; else it waits until they are (see the remarks).
    /// </summary>
    /// <param name="marker">The marker.</param>
    /// <param name="stored">JetStream: the marker's sequence in the stream; Core: <see cref="ulong.MaxValue"/> (a live marker is always current).</param>
    private void OnEnd(Incoming<T> marker, ulong stored)
    {
        if (marker.Kind != EnvelopeKind.End)
        {
            Interlocked.Increment(ref _malformed);
            return;
        }

        lock (_gate)
        {
            if (_producers.TryGetValue(marker.Producer, out var seen) || stored > _startSequence)
            {
                // Seen here, or current: a producer whose messages may still come. One beyond MaxProducers is counted
                // all the same, so that refusing its messages does not leave the consumer waiting for it.
                var producer = seen ?? Find(marker.Producer);
                if (producer is null)
                {
                    _ended += _pendingMarkers.TryAdd(marker.Producer, marker.Sequence) ? 1 : 0;
                }
                else if (producer.Posted is null)
                {
                    producer.Posted = marker.Sequence;
                    _ended++;
                }
            }
            else if (_pendingMarkers.Count < _options.MaxProducers)
            {
                _pendingMarkers.TryAdd(marker.Producer, -marker.Sequence - 1); // negative: not counted yet
            }

            if (AllEnded)
            {
                _allEnded.TrySetResult();
            }
        }
    }

    private bool AllEnded => _options.ExpectedProducers is { } expected && Volatile.Read(ref _ended) >= expected;

    /// <summary>
    /// The producer's state, added on its first message (taking its end marker if one waits for it); null once
    /// <see cref="NatsPipeOptions.MaxProducers"/> are known.
    /// </summary>
    private Producer? Find(ulong id)
    {
        lock (_gate) // the JetStream markers' reader adds producers too
        {
            if (_producers.TryGetValue(id, out var producer))
            {
                return producer;
            }

            if (_producers.Count >= _options.MaxProducers)
            {
                return null;
            }

            producer = new Producer(id, Envelope.ProducerName(id), _options.Delivery == NatsDelivery.JetStream ? new SequenceWindow((int)BitOperationsRoundUp(_options.RepeatWindow)) : null);
            _producers.Add(id, producer);
            _order.Add(producer);
            if (_pendingMarkers.Remove(id, out var pending))
            {
                // A marker stored before this consumer started, of a producer it now sees: it counts from now.
                producer.Posted = pending < 0 ? -pending - 1 : pending;
                _ended += pending < 0 ? 1 : 0;
                if (AllEnded)
                {
                    _allEnded.TrySetResult();
                }
            }

            return producer;
        }
    }

    /// <summary>
    /// The loop's <see cref="Find"/>: the producer of the loop's previous message without taking the lock (a producer's
    /// state, once added, stays for the consumer's life), else <see cref="Find"/>.
    /// </summary>
    private Producer? FindFromLoop(ulong id)
    {
        if (_loopLast is { } last && last.Id == id)
        {
            return last;
        }

        var found = Find(id);
        _loopLast = found ?? _loopLast;
        return found;
    }

    private static uint BitOperationsRoundUp(int value) => System.Numerics.BitOperations.RoundUpToPowerOf2((uint)value);

    private async Task WithinServerTimeout(Task task, string what, CancellationToken cancellationToken)
    {
        try
        {
            await task.WaitAsync(_options.ServerTimeout, cancellationToken).ConfigureAwait(false);
        }
        catch (TimeoutException e)
        {
            throw new NatsPipeException($"The server at {NatsSetup.Redacted(_connection.Opts.Url)} did not answer within {_options.ServerTimeout.TotalSeconds:0.#} s while {what}.", e);
        }
    }

    /// <summary>One producer as this consumer knows it.</summary>
    private sealed class Producer(ulong id, string name, SequenceWindow? window)
    {
        public readonly ulong Id = id;
        public readonly string Name = name;
        public readonly SequenceWindow? Window = window; // JetStream: what was handled
        public long Next = 1;     // Core, own subscription: the next sequence number expected
        public long Handled;      // written by the loop, read by Counts
        public long? Posted;      // from the end marker
    }

    /// <summary>The handler threw: carries its exception out of the loop.</summary>
    private sealed class HandlerFault(Exception inner) : Exception("The handler threw.", inner);
}
