using System.Buffers.Binary;
using System.Diagnostics;
using Concurrency.Messaging.Grpc;
using Concurrency.Messaging.Grpc.Protocol;
using Google.Protobuf;
using Grpc.Core;
using Grpc.Net.Client;
using HdrHistogram;

namespace Concurrency.Benchmarks.CrossProcess;

/// <summary>
/// The timed runs of the gRPC experiment. Every message carries its number in its first 8 bytes; every run counts the
/// replies and sums the numbers they carry, and throws <see cref="LabVerificationException"/> unless each message came
/// back exactly once.
/// </summary>
internal static class PeerRuns
{
    private const long LongestLatencyNs = 60_000_000_000;

    /// <summary>
    /// Our client: <paramref name="senders"/> tasks, each sending its share of <paramref name="messages"/> one after another
    /// and awaiting each reply (the seed's shape: many callers, each with a message in flight).
    /// </summary>
    public static async Task<PeerRunResult> PumpAsync(Uri server, PeerMode mode, int buffer, int payloadBytes, int senders, int messages, CancellationToken cancellation)
    {
        var options = new PeerClientOptions { Mode = mode, BufferSize = buffer, DeliveryTimeout = TimeSpan.FromMinutes(5) };
        await using var client = await PeerClient.ConnectAsync(server.ToString(), options, cancellation).ConfigureAwait(false);
        var result = await SendersAsync(
            $"pump {mode}",
            senders,
            messages,
            payloadBytes,
            payload => new ValueTask<PeerMessage>(client.SendAsync(new PeerMessage("echo", "bench", payload), cancellation)),
            static reply => BinaryPrimitives.ReadInt64LittleEndian(reply.Payload.Span),
            cancellation).ConfigureAwait(false);
        await client.CompleteAsync(cancellation).ConfigureAwait(false);
        return result;
    }

    /// <summary>
    /// <paramref name="senders"/> tasks, each sending its share of <paramref name="messages"/> one at a time through
    /// <paramref name="send"/> and awaiting the reply in its own loop, as a user's program awaits the client's call (no
    /// async wrapper of the harness's between them: that cost a state machine and a task per message, which only the
    /// per-message contenders paid), reading the number the reply carries with <paramref name="number"/> and timing each
    /// round trip; then the replies verified and the run timed (<see cref="Timed"/>). Each sender reuses one payload
    /// buffer: it awaits its reply before it writes the next number into it, so a client that does not copy a payload has
    /// sent it by then.
    /// </summary>
    public static async Task<PeerRunResult> SendersAsync<TReply>(string label, int senders, int messages, int payloadBytes, Func<byte[], ValueTask<TReply>> send, Func<TReply, long> number, CancellationToken cancellation)
    {
        ArgumentNullException.ThrowIfNull(send);
        ArgumentNullException.ThrowIfNull(number);
        var perSender = messages / senders;
        var latencies = new long[perSender * senders];
        var allocated = GC.GetTotalAllocatedBytes(precise: false);
        var start = Stopwatch.GetTimestamp();
        var sums = await Task.WhenAll(Enumerable.Range(0, senders).Select(sender => Task.Run(
            async () =>
            {
                var payload = new byte[Math.Max(payloadBytes, sizeof(long))];
                long sum = 0;
                for (var k = 0; k < perSender; k++)
                {
                    var numbered = (long)sender + ((long)k * senders);
                    BinaryPrimitives.WriteInt64LittleEndian(payload, numbered);
                    var sent = Stopwatch.GetTimestamp();
                    var reply = await send(payload).ConfigureAwait(false);
                    latencies[numbered] = Stopwatch.GetTimestamp() - sent;
                    sum += number(reply);
                }

                return sum;
            },
            cancellation))).ConfigureAwait(false);
        var elapsed = Stopwatch.GetElapsedTime(start);
        return Timed(label, latencies, sums.Sum(), elapsed, BytesPerMessage(allocated, latencies.Length));
    }

    /// <summary>
    /// A run of senders that each timed their round trips: <paramref name="latencies"/> in <see cref="Stopwatch"/> ticks, one
    /// per message, indexed by the message's number; <paramref name="sum"/> the sum of the numbers the replies carried.
    /// </summary>
    public static PeerRunResult Timed(string path, long[] latencies, long sum, TimeSpan elapsed, double bytesPerMessage)
    {
        Verify(path, latencies.Length, latencies.Length, sum);
        if (latencies.Any(latency => latency == 0))
        {
            throw new LabVerificationException($"{path}: a reply came back without its send being timed.");
        }

        var histogram = new LongHistogram(LongestLatencyNs, 3);
        foreach (var ticks in latencies)
        {
            histogram.RecordValue(Math.Min(ticks * 1_000_000_000L / Stopwatch.Frequency, LongestLatencyNs));
        }

        return new PeerRunResult(
            latencies.Length / elapsed.TotalSeconds,
            histogram.GetValueAtPercentile(50) / 1_000.0,
            histogram.GetValueAtPercentile(99) / 1_000.0,
            histogram.GetValueAtPercentile(99.9) / 1_000.0,
            bytesPerMessage);
    }

    /// <summary>
    /// The plain generated client, no pump: one loop writes <paramref name="perWrite"/> envelopes per write, awaiting
    /// each write, while a reader counts the replies. <paramref name="perWrite"/> = 1 is the naive client; 256 the raw
    /// batched ceiling of what a pump can do with batches of that size.
    /// </summary>
    public static async Task<PeerRunResult> RawAsync(Uri server, int perWrite, int payloadBytes, int messages, CancellationToken cancellation)
    {
        using var channel = GrpcChannel.ForAddress(server, new GrpcChannelOptions
        {
            MaxReceiveMessageSize = PeerClientOptions.WireLimitBytes,
            MaxSendMessageSize = PeerClientOptions.WireLimitBytes,
        });
        var client = new Peer.PeerClient(channel);

        // No session header: the server answers without de-duplication, as it would any plain client of the protocol.
        using var call = client.Exchange(cancellationToken: cancellation);
        if (!await call.ResponseStream.MoveNext(cancellation).ConfigureAwait(false))
        {
            throw new InvalidOperationException("The peer ended the stream before its greeting.");
        }

        var allocated = GC.GetTotalAllocatedBytes(precise: false);
        var start = Stopwatch.GetTimestamp();
        var reader = CountRepliesAsync(call.ResponseStream, batch => batch.Envelopes.Select(e => e.Payload), cancellation);
        var size = Math.Max(payloadBytes, sizeof(long));
        for (var first = 0; first < messages; first += perWrite)
        {
            var batch = new PeerBatch();
            for (var number = first; number < Math.Min(first + perWrite, messages); number++)
            {
                var payload = new byte[size];
                BinaryPrimitives.WriteInt64LittleEndian(payload, number);
                batch.Envelopes.Add(new Envelope { Sequence = (ulong)number + 1, Type = "echo", Source = "bench", Payload = UnsafeByteOperations.UnsafeWrap(payload) });
            }

            await call.RequestStream.WriteAsync(batch, cancellation).ConfigureAwait(false);
        }

        await call.RequestStream.CompleteAsync().ConfigureAwait(false);
        var (replies, total) = await reader.ConfigureAwait(false);
        var elapsed = Stopwatch.GetElapsedTime(start);
        var bytesPerMessage = BytesPerMessage(allocated, messages);
        Verify(perWrite == 1 ? "naive" : $"raw batched {perWrite}", messages, replies, total);
        return new PeerRunResult(messages / elapsed.TotalSeconds, double.NaN, double.NaN, double.NaN, bytesPerMessage);
    }

    /// <summary>
    /// The yardstick: the plain generated client of <see cref="PlainEchoServer"/>, writing <paramref name="perWrite"/>
    /// envelopes per write on one stream while a reader counts the batches that come back whole. What gRPC moves when
    /// nothing of ours is on either side.
    /// </summary>
    public static async Task<PeerRunResult> PlainEchoAsync(Uri server, int perWrite, int payloadBytes, int messages, CancellationToken cancellation)
    {
        using var channel = GrpcChannel.ForAddress(server, new GrpcChannelOptions { MaxReceiveMessageSize = null, MaxSendMessageSize = null });

        // Connected before the clock starts, as our client (ConnectAsync) and the raw one (the greeting) are.
        await channel.ConnectAsync(cancellation).ConfigureAwait(false);
        var client = new PlainEcho.Echo.EchoClient(channel);
        using var call = client.Exchange(cancellationToken: cancellation);
        var allocated = GC.GetTotalAllocatedBytes(precise: false);
        var start = Stopwatch.GetTimestamp();
        var reader = CountRepliesAsync(call.ResponseStream, batch => batch.Envelopes.Select(e => e.Payload), cancellation);
        var size = Math.Max(payloadBytes, sizeof(long));
        for (var first = 0; first < messages; first += perWrite)
        {
            var batch = new PlainEcho.EchoBatch();
            for (var number = first; number < Math.Min(first + perWrite, messages); number++)
            {
                var payload = new byte[size];
                BinaryPrimitives.WriteInt64LittleEndian(payload, number);
                batch.Envelopes.Add(new PlainEcho.EchoEnvelope { Sequence = (ulong)number + 1, Type = "echo", Source = "bench", Payload = UnsafeByteOperations.UnsafeWrap(payload) });
            }

            await call.RequestStream.WriteAsync(batch, cancellation).ConfigureAwait(false);
        }

        await call.RequestStream.CompleteAsync().ConfigureAwait(false);
        var (replies, total) = await reader.ConfigureAwait(false);
        var elapsed = Stopwatch.GetElapsedTime(start);
        var bytesPerMessage = BytesPerMessage(allocated, messages);
        Verify($"plain echo, batches of {perWrite}", messages, replies, total);
        return new PeerRunResult(messages / elapsed.TotalSeconds, double.NaN, double.NaN, double.NaN, bytesPerMessage);
    }

    /// <summary>Proto.Remote: the peer a .NET actor user would pick, moving the same messages to its echo actor.</summary>
    public static async Task<PeerRunResult> ProtoRemoteAsync(string endpoint, ProtoRemoteSendMode mode, int senders, int payloadBytes, int messages, CancellationToken cancellation)
    {
        if (!LabPeers.TrySplit(endpoint, out var host, out var port))
        {
            throw new ArgumentException($"'{endpoint}' is not HOST:PORT.", nameof(endpoint));
        }

        var result = await ProtoRemoteEchoClient.RunAsync(host, port, mode, messages, senders, payloadBytes, TimeSpan.FromMinutes(5), cancellation).ConfigureAwait(false);
        if (result.Messages != messages)
        {
            throw new LabVerificationException($"Proto.Remote {mode}: {result.Messages:N0} replies for {messages:N0} messages.");
        }

        return new PeerRunResult(messages / result.Elapsed.TotalSeconds, double.NaN, double.NaN, double.NaN);
    }

    /// <summary>
    /// On a pool thread: reads the stream's batches until the server ends it, counting the replies and summing the number
    /// each carries in its first 8 bytes, for the run's verification.
    /// </summary>
    private static Task<(long Count, long Sum)> CountRepliesAsync<TBatch>(IAsyncStreamReader<TBatch> replies, Func<TBatch, IEnumerable<ByteString>> payloads, CancellationToken cancellation)
        => Task.Run(
            async () =>
            {
                long count = 0, sum = 0;
                while (await replies.MoveNext(cancellation).ConfigureAwait(false))
                {
                    foreach (var payload in payloads(replies.Current))
                    {
                        sum += BinaryPrimitives.ReadInt64LittleEndian(payload.Span);
                        count++;
                    }
                }

                return (Count: count, Sum: sum);
            },
            cancellation);

    // What this process allocated since the count was taken, per message: the client's side (the peer is another process).
    public static double BytesPerMessage(long allocatedBefore, long messages)
        => (GC.GetTotalAllocatedBytes(precise: false) - allocatedBefore) / (double)messages;

    private static void Verify(string path, long expected, long replies, long sum)
    {
        var expectedSum = expected * (expected - 1) / 2;
        if (replies != expected || sum != expectedSum)
        {
            throw new LabVerificationException($"{path}: {replies:N0} replies summing to {sum:N0}; expected {expected:N0} summing to {expectedSum:N0}.");
        }
    }
}
