using Concurrency.Messaging.Pipes;
using NATS.Client.Core;
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
    private readonly NatsPipeOptions _options;
    private readonly ConsumerLoop<T> _loop;   // the mode's loop: the handler, the producers and the counts
    private readonly Task _run;
    private int _disposed;                    // 1 once DisposeAsync ran

    private NatsPipeConsumer(NatsPipeOptions options, ConsumerLoop<T> loop)
    {
        _options = options;
        _loop = loop;
        _run = Task.Run(loop.RunAsync, CancellationToken.None);
    }

    /// <summary>
    /// Gets a task that finishes once the expected producers ended and everything before their end markers was handled
    /// (or, Core, found missing), or once the consumer was stopped; see the remarks for its faults. When it has finished,
    /// <see cref="Counts"/> is final.
    /// </summary>
    public Task Completion => _loop.Completion;

    /// <summary>Gets what the consumer has seen so far; final once <see cref="Completion"/> has finished.</summary>
    public NatsPipeCounts Counts => _loop.Counts;

    /// <summary>Starts the consumer's loop; called once, by <see cref="NatsPipe.StartConsumerAsync{T}(NatsConnection, NatsPipeOptions, Func{T, CancellationToken, ValueTask}, INatsDeserialize{T}?, CancellationToken)"/>.</summary>
    internal static async Task<NatsPipeConsumer<T>> StartAsync(NatsConnection connection, NatsPipeOptions options, Func<T, CancellationToken, ValueTask> handler, INatsDeserialize<T>? deserializer, CancellationToken cancellationToken)
    {
        var (js, lastSequence) = await NatsSetup.ConnectAsync(connection, options, cancellationToken).ConfigureAwait(false);
        var reader = new Envelope.Reader<T>(deserializer ?? connection.Opts.SerializerRegistry.GetDeserializer<T>());
        if (js is null)
        {
            INatsSub<Incoming<T>>? data = null, ends = null;
            try
            {
                data = await connection.SubscribeCoreAsync(options.Subject, options.Group, reader, cancellationToken: cancellationToken).ConfigureAwait(false);
                ends = await connection.SubscribeCoreAsync(Envelope.EndSubject(options.Subject), queueGroup: null, reader, cancellationToken: cancellationToken).ConfigureAwait(false);

                // A round trip: the server has both subscriptions before the first producer can be told to start.
                await NatsSetup.WithinServerTimeout(connection, options, connection.PingAsync(cancellationToken).AsTask(), "subscribing", cancellationToken).ConfigureAwait(false);
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

            return new NatsPipeConsumer<T>(options, new CoreConsumerLoop<T>(connection, options, handler, data, ends));
        }

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
        return new NatsPipeConsumer<T>(options, new JetStreamConsumerLoop<T>(connection, options, handler, reader, js, durable, lastSequence));
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
        await _loop.StopAsync().ConfigureAwait(false);
        await _run.WaitAsync(cancellationToken).ConfigureAwait(false);
    }

    /// <summary>Stops the consumer (see <see cref="StopAsync"/>), waiting at most <see cref="NatsPipeOptions.ServerTimeout"/> for its loop. A second call does nothing.</summary>
    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
        {
            return;
        }

        await _loop.StopAsync().ConfigureAwait(false);
        try
        {
            await _run.WaitAsync(_options.ServerTimeout).ConfigureAwait(false);
        }
        catch (TimeoutException)
        {
            return; // a handler that ignores its token: the loop ends when it returns, and needs the token till then
        }

        _loop.Dispose();
    }
}
