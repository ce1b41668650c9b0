using System.Diagnostics;
using Concurrency.Messaging.Pipes;
using NATS.Client.Core;
using NATS.Client.JetStream;
using NATS.Client.JetStream.Models;

namespace Concurrency.Messaging.Nats;

/// <summary>
/// A JetStream consumer's loop: pulls from the group's durable consumer, hands each message over once while it lives
/// (each producer's <see cref="SequenceWindow"/>), acknowledges after the handler returned; beside it, the end markers'
/// reader and, once every expected producer ended, the watch that ends the pull when the group has nothing left (see
/// <see cref="NatsPipeConsumer{T}"/>).
/// </summary>
/// <typeparam name="T">The message type.</typeparam>
internal sealed class JetStreamConsumerLoop<T> : ConsumerLoop<T>
{
    private static readonly TimeSpan GroupPoll = TimeSpan.FromMilliseconds(50);
    private static readonly TimeSpan RetryDelay = TimeSpan.FromMilliseconds(100);

    private readonly NatsJSContext _js;
    private readonly INatsJSConsumer _durable;
    private readonly Envelope.Reader<T> _reader;
    private readonly string _markerReader = $"ends-{Random.Shared.NextInt64():x16}"; // the end markers' reader's name

    /// <summary>A loop over <paramref name="durable"/>, the group's consumer on the stream; <paramref name="startSequence"/> is the stream's last sequence when the consumer started (see <see cref="ProducerBook"/>).</summary>
    public JetStreamConsumerLoop(NatsConnection connection, NatsPipeOptions options, Func<T, CancellationToken, ValueTask> handler, Envelope.Reader<T> reader, NatsJSContext js, INatsJSConsumer durable, ulong startSequence)
        : base(connection, options, handler)
    {
        _reader = reader;
        _js = js;
        _durable = durable;
        _book.StartSequence = startSequence;
    }

    public override async Task RunAsync()
    {
        using var drained = new CancellationTokenSource(); // the group has nothing left: the pull ends
        using var linked = CancellationTokenSource.CreateLinkedTokenSource(_stop.Token, drained.Token);
        var markers = Task.Run(ReadMarkersAsync, CancellationToken.None);
        var watcher = Task.Run(() => WatchGroupAsync(drained), CancellationToken.None);
        Exception? failure = null;
        try
        {
            var failingSince = (long?)null;
            while (!linked.IsCancellationRequested)
            {
                try
                {
                    await foreach (var message in _durable.ConsumeAsync(_reader, cancellationToken: linked.Token).ConfigureAwait(false))
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
        try
        {
            await _stop.CancelAsync().ConfigureAwait(false);
        }
#pragma warning disable CA1031 // a callback on the stop's token that threw: reported through the completion, which must still come
        catch (Exception e)
#pragma warning restore CA1031
        {
            failure ??= e;
        }

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

    private async ValueTask OnJetStreamAsync(INatsJSMsg<Incoming<T>> message)
    {
        var incoming = message.Data;
        if (incoming.Kind != EnvelopeKind.Data)
        {
            Interlocked.Increment(ref _malformed);
            await Settle(message.AckTerminateAsync(cancellationToken: _stop.Token)).ConfigureAwait(false); // the stream keeps it; this group will not see it again
            return;
        }

        if (_book.FindFromLoop(incoming.Producer) is not { } producer)
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
    private ValueTask<INatsJSConsumer> MarkerReaderAsync(CancellationToken cancellationToken)
        => _js.CreateOrUpdateConsumerAsync(
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

    private async Task ReadMarkersAsync()
    {
        while (!_stop.IsCancellationRequested)
        {
            try
            {
                var ends = await MarkerReaderAsync(_stop.Token).ConfigureAwait(false);
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
    private async Task WatchGroupAsync(CancellationTokenSource drained)
    {
        try
        {
            await _book.AllEndedTask.WaitAsync(_stop.Token).ConfigureAwait(false);
            long? failingSince = null;
            while (true)
            {
                await Task.Delay(GroupPoll, _stop.Token).ConfigureAwait(false);
                try
                {
                    await _durable.RefreshAsync(_stop.Token).ConfigureAwait(false);
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

                if (_durable.Info.NumPending == 0 && _durable.Info.NumAckPending == 0)
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
}
