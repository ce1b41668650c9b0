using System.Buffers.Binary;
using System.Diagnostics;
using System.Threading.Channels;
using Concurrency.Benchmarks.Backbone.Latency;
using Concurrency.Messaging.Nats;
using HdrHistogram;
using NATS.Client.Core;
using NATS.Client.JetStream;
using NATS.Client.JetStream.Models;

namespace Concurrency.Benchmarks.CrossProcess;

/// <summary>Who moves the messages in <c>lab nats</c>: NATS.Net used directly, or our pipes over NATS.</summary>
internal enum NatsSide
{
    /// <summary>NATS.Net 3.3.2 as its documentation shows it: a publish loop and a subscription reader (Core); windowed
    /// publishing with message ids and a durable pull consumer acknowledging each message (JetStream).</summary>
    Direct,

    /// <summary><see cref="NatsPipeProducer{T}"/> and <see cref="NatsPipeConsumer{T}"/> in the same shape.</summary>
    Ours,
}

/// <summary>
/// The two ends of one <c>lab nats</c> round, for each side and mode: the producer (in the lab's process) posts numbered
/// 64-byte messages, each stamped with the time of its post; the consumer (in a process of its own, see
/// <see cref="NatsConsumeCommand"/>) counts them, sums their numbers and records each one's time from post to handler.
/// </summary>
internal static class NatsEnds
{
    /// <summary>The message size: the 64 bytes of the user's message (ours adds its 17-byte envelope on the wire).</summary>
    public const int PayloadBytes = 64;

    /// <summary>JetStream publishes awaiting confirmation at once, for both sides (our default window).</summary>
    public const int PublishWindow = NatsPipeOptions.DefaultPublishWindow;

    /// <summary>The options of our pipe in a round: the same stream and group the direct side makes by hand.</summary>
    public static NatsPipeOptions Options(NatsDelivery mode, string subject) => new()
    {
        Subject = subject,
        Delivery = mode,
        Group = mode == NatsDelivery.JetStream ? "bench" : null,
        ExpectedProducers = 1,
        ServerTimeout = TimeSpan.FromSeconds(30),
    };

    /// <summary>A connection as both sides use it: a consumer's holds the server back rather than dropping messages.</summary>
    public static NatsConnection Connect(string url, string name)
        => new(NatsOpts.Default with { Url = url, Name = name, SubPendingChannelFullMode = BoundedChannelFullMode.Wait });

    /// <summary>
    /// Posts messages 1..<paramref name="messages"/> as fast as the side allows, or at <paramref name="rate"/> per second
    /// (open loop: each message posted once it is due, whatever the consumer does), each stamped with the time of its
    /// post; then ends (ours: the end marker; direct: a flush). Returns the time of the first post.
    /// </summary>
    public static async Task<long> ProduceAsync(NatsConnection connection, NatsDelivery mode, NatsSide side, string subject, long messages, double? rate, CancellationToken cancellation)
    {
        var started = Stopwatch.GetTimestamp();
        var perMessage = rate is { } r ? Stopwatch.Frequency / r : 0;
        var buffer = new byte[PayloadBytes];
        if (side == NatsSide.Ours)
        {
            await using var producer = await NatsPipe.StartProducerAsync<byte[]>(connection, Options(mode, subject), cancellationToken: cancellation).ConfigureAwait(false);
            started = Stopwatch.GetTimestamp();
            for (var n = 1L; n <= messages; n++)
            {
                var posted = await Pace(started, perMessage, n, cancellation).ConfigureAwait(false);

                // JetStream may resend a message after a reconnect, from the array it was given: one array each.
                var payload = mode == NatsDelivery.JetStream ? new byte[PayloadBytes] : buffer;
                await producer.PostAsync(Stamp(payload, n, posted), cancellation).ConfigureAwait(false);
            }

            await producer.CompleteAsync(cancellation).ConfigureAwait(false);
            return started;
        }

        if (mode == NatsDelivery.Core)
        {
            for (var n = 1L; n <= messages; n++)
            {
                var posted = await Pace(started, perMessage, n, cancellation).ConfigureAwait(false);
                await connection.PublishAsync(subject, Stamp(buffer, n, posted), cancellationToken: cancellation).ConfigureAwait(false);
            }

            await connection.PingAsync(cancellation).ConfigureAwait(false);
            return started;
        }

        var js = new NatsJSContext(connection);
        await js.CreateOrUpdateStreamAsync(StreamFor(subject), cancellation).ConfigureAwait(false);
        started = Stopwatch.GetTimestamp();
        using var window = new SemaphoreSlim(PublishWindow, PublishWindow);
        var failures = 0;
        for (var n = 1L; n <= messages; n++)
        {
            var posted = await Pace(started, perMessage, n, cancellation).ConfigureAwait(false);
            await window.WaitAsync(cancellation).ConfigureAwait(false);
            var payload = Stamp(new byte[PayloadBytes], n, posted);
            var id = n.ToString(System.Globalization.CultureInfo.InvariantCulture);
            _ = Publish();

            async Task Publish()
            {
                try
                {
                    (await js.PublishAsync(subject, payload, opts: new NatsJSPubOpts { MsgId = id }, cancellationToken: cancellation).ConfigureAwait(false)).EnsureSuccess();
                }
#pragma warning disable CA1031 // counted and reported: a direct run that lost a publish does not verify
                catch (Exception)
#pragma warning restore CA1031
                {
                    Interlocked.Increment(ref failures);
                }
                finally
                {
                    window.Release();
                }
            }
        }

        for (var i = 0; i < PublishWindow; i++)
        {
            await window.WaitAsync(cancellation).ConfigureAwait(false);
        }

        if (failures > 0)
        {
            throw new InvalidOperationException($"{failures} direct JetStream publishes failed.");
        }

        return started;
    }

    /// <summary>What the consumer of a round saw: each message's time from post to handler in nanoseconds.</summary>
    public sealed record Consumed(long Handled, long Checksum, long LastHandled, LongHistogram Latency);

    /// <summary>
    /// Subscribes (or sets up the durable consumer), calls <paramref name="ready"/>, then handles until
    /// <paramref name="messages"/> arrived (direct) or the producer's end marker and everything before it (ours).
    /// </summary>
    public static async Task<Consumed> ConsumeAsync(NatsConnection connection, NatsDelivery mode, NatsSide side, string subject, long messages, Action ready, CancellationToken cancellation)
    {
        var latency = new LongHistogram(LatencyRecorder.LongestNanoseconds, 3);
        var nanosecondsPerTick = 1e9 / Stopwatch.Frequency;
        long handled = 0, checksum = 0, last = 0;
        void Handle(byte[] payload)
        {
            var now = Stopwatch.GetTimestamp();
            var number = BinaryPrimitives.ReadInt64LittleEndian(payload);
            var posted = BinaryPrimitives.ReadInt64LittleEndian(payload.AsSpan(sizeof(long)));
            latency.RecordValue(Math.Clamp((long)((now - posted) * nanosecondsPerTick), 0, LatencyRecorder.LongestNanoseconds));
            checksum += number;
            handled++;
            last = now;
        }

        if (side == NatsSide.Ours)
        {
            await using var consumer = await NatsPipe.StartConsumerAsync<byte[]>(connection, Options(mode, subject), Handle, cancellationToken: cancellation).ConfigureAwait(false);
            ready();
            await consumer.Completion.WaitAsync(cancellation).ConfigureAwait(false);
            return new Consumed(handled, checksum, last, latency);
        }

        if (mode == NatsDelivery.Core)
        {
            await using var subscription = await connection.SubscribeCoreAsync<byte[]>(subject, cancellationToken: cancellation).ConfigureAwait(false);
            await connection.PingAsync(cancellation).ConfigureAwait(false);
            ready();
            while (handled < messages && await subscription.Msgs.WaitToReadAsync(cancellation).ConfigureAwait(false))
            {
                while (handled < messages && subscription.Msgs.TryRead(out var message))
                {
                    Handle(message.Data!);
                }
            }

            return new Consumed(handled, checksum, last, latency);
        }

        var js = new NatsJSContext(connection);
        await js.CreateOrUpdateStreamAsync(StreamFor(subject), cancellation).ConfigureAwait(false);
        var durable = await js.CreateOrUpdateConsumerAsync(StreamFor(subject).Name!, new ConsumerConfig("bench")
        {
            DurableName = "bench",
            FilterSubject = subject,
            AckPolicy = ConsumerConfigAckPolicy.Explicit,
            MaxAckPending = 1000,
        }, cancellation).ConfigureAwait(false);
        ready();
        await foreach (var message in durable.ConsumeAsync<byte[]>(cancellationToken: cancellation).ConfigureAwait(false))
        {
            Handle(message.Data!);
            await message.AckAsync(cancellationToken: cancellation).ConfigureAwait(false);
            if (handled == messages)
            {
                break;
            }
        }

        return new Consumed(handled, checksum, last, latency);
    }

    /// <summary>The stream both sides use for a JetStream round: as our pipe makes it (file store, the same limits).</summary>
    public static StreamConfig StreamFor(string subject)
    {
        var options = Options(NatsDelivery.JetStream, subject);
        return new StreamConfig(subject.Replace('.', '_').ToUpperInvariant(), [subject, subject + "._end"])
        {
            Storage = StreamConfigStorage.File,
            Discard = StreamConfigDiscard.New,
            MaxBytes = options.StreamMaxBytes,
            DuplicateWindow = options.DuplicateWindow,
        };
    }

    private static byte[] Stamp(byte[] payload, long number, long posted)
    {
        BinaryPrimitives.WriteInt64LittleEndian(payload, number);
        BinaryPrimitives.WriteInt64LittleEndian(payload.AsSpan(sizeof(long)), posted);
        return payload;
    }

    /// <summary>Unpaced: at once. Paced: waits until message <paramref name="n"/> is due (in steps of about a millisecond). Returns the time of the post.</summary>
    private static async ValueTask<long> Pace(long started, double perMessage, long n, CancellationToken cancellation)
    {
        if (perMessage != 0)
        {
            var due = started + (long)(perMessage * n);
            while (Stopwatch.GetTimestamp() < due)
            {
                await Task.Delay(1, cancellation).ConfigureAwait(false);
            }
        }

        return Stopwatch.GetTimestamp();
    }
}
