using System.Buffers.Binary;
using System.Diagnostics;
using Concurrency.Benchmarks.Backbone.Latency;
using Concurrency.Messaging.Grpc;

namespace Concurrency.Benchmarks.CrossProcess;

/// <summary>
/// Our gRPC client offered requests on a schedule: a <see cref="PeerClient"/> (the registry's buffer) to an echo
/// <see cref="PeerServer"/> on 127.0.0.1 in this process. The runner sends each request when it is due, without waiting
/// for earlier replies (open loop), at most <see cref="MostInFlight"/> at a time: a send that finds that many in flight
/// waits for room, and the wait is part of its latency, which runs from when it was due to when its reply reached the
/// caller. Each request carries its number; each reply must carry the same one, and a run checks the count and the sum.
/// </summary>
/// <remarks>
/// Concurrency rule: <see cref="Run"/> and <see cref="Dispose"/> run on the runner's thread; the replies' continuations run
/// wherever the client completes them (pool threads in async mode, its delivery loop in order), each writing only its
/// own message's slot of <see cref="_latencies"/> and the interlocked totals; the runner reads them after <see cref="_done"/>.
/// </remarks>
internal sealed class PacedGrpc : IPacedTarget
{
    /// <summary>
    /// The most requests in flight: as many as the lab's thousands of senders each awaiting its own reply keep, enough to
    /// fill the client's batches at its maximum, and a bound on what a stalled peer can pile up.
    /// </summary>
    public const int MostInFlight = 4096;

    private static readonly TimeSpan StartLimit = TimeSpan.FromSeconds(60);

    private readonly PeerServer _server;
    private readonly PeerClient _client;
    private readonly string _label;
    private readonly LatencyRecorder _recorder = new();              // runner only
    private readonly SemaphoreSlim _room = new(MostInFlight, MostInFlight);
    private readonly ManualResetEventSlim _done = new();             // set by the last reply of a run, or by a failure
    private long[] _latencies = [];                                  // slot i: message i's ticks from due to reply, written by its continuation
    private int _expected;                                           // written by the runner before a run's first send
    private long _replies;                                           // interlocked
    private long _sum;                                               // interlocked: the numbers the replies carried
    private Exception? _fault;                                       // the run's first failure, set once (interlocked)

    private PacedGrpc(PeerServer server, PeerClient client, string label)
    {
        _server = server;
        _client = client;
        _label = label;
    }

    /// <summary>Starts the echo server on a free loopback port and connects a client in <paramref name="mode"/> to it, within a minute.</summary>
    public static PacedGrpc Start(PeerMode mode, string label)
    {
        using var limit = new CancellationTokenSource(StartLimit);
        var server = PeerServer.StartAsync(new PeerServerOptions { Urls = ["http://127.0.0.1:0"] }, limit.Token).GetAwaiter().GetResult();
        try
        {
            var options = new PeerClientOptions { Mode = mode, BufferSize = GrpcContenders.Buffer, DeliveryTimeout = RunLimit.Timeout };
            var client = PeerClient.ConnectAsync(server.Address.ToString(), options, limit.Token).GetAwaiter().GetResult();
            return new PacedGrpc(server, client, label);
        }
        catch
        {
            server.DisposeAsync().AsTask().GetAwaiter().GetResult();
            throw;
        }
    }

    public PacedOutcome Run(int messages, Schedule schedule)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(messages);
        if (_latencies.Length < messages)
        {
            _latencies = new long[messages];
        }

        _expected = messages;
        _replies = 0;
        _sum = 0;
        _fault = null;
        _done.Reset();
        for (var i = 0; i < messages && Volatile.Read(ref _fault) is null; i++)
        {
            schedule.AwaitDue(i);
            if (!_room.Wait(RunLimit.Timeout))
            {
                throw RunLimit.Stuck($"{_label}: room for a request ({MostInFlight} in flight)");
            }

            // The client does not copy a payload: each request has its own, unchanged until its reply.
            var payload = new byte[sizeof(long)];
            BinaryPrimitives.WriteInt64LittleEndian(payload, i);
            _ = ReplyAsync(_client.SendAsync(new PeerMessage("echo", "latency", payload)), i, schedule.DueOf(i));
        }

        RunLimit.Wait(_done, _label);
        var seconds = Stopwatch.GetElapsedTime(schedule.Start).TotalSeconds;
        if (Volatile.Read(ref _fault) is { } fault)
        {
            throw new InvalidOperationException($"{_label}: a request failed.", fault);
        }

        var expectedSum = (long)messages * (messages - 1) / 2;
        if (Interlocked.Read(ref _replies) != messages || Interlocked.Read(ref _sum) != expectedSum)
        {
            throw new InvalidOperationException($"{_label}: {_replies:N0} replies summing to {_sum:N0}; expected {messages:N0} summing to {expectedSum:N0}.");
        }

        _recorder.Arm(schedule, placeBefore: 0);
        for (var i = 0; i < messages; i++)
        {
            _recorder.RecordLatency(_latencies[i]);
        }

        if (_recorder.Histogram.TotalCount != messages)
        {
            throw new InvalidOperationException($"{_label}: {_recorder.Histogram.TotalCount} latencies recorded for {messages} messages.");
        }

        return new PacedOutcome(LatencyDistribution.Merge([_recorder.Histogram]), seconds);
    }

    public void Dispose()
    {
        try
        {
            using var limit = new CancellationTokenSource(RunLimit.Timeout);
            RunLimit.Wait(_client.CompleteAsync(limit.Token), $"{_label}: closing the client");
        }
        finally
        {
            RunLimit.Wait(_client.DisposeAsync().AsTask(), $"{_label}: disposing the client");
            RunLimit.Wait(_server.DisposeAsync().AsTask(), $"{_label}: stopping the server");
            _room.Dispose();
            _done.Dispose();
        }
    }

    /// <summary>Message <paramref name="index"/>'s reply: timed when it reaches the caller, checked, counted; room for the next request.</summary>
    private async Task ReplyAsync(Task<PeerMessage> reply, int index, long due)
    {
        Exception? failure = null;
        var last = false;
        try
        {
            var message = await reply.ConfigureAwait(false);
            _latencies[index] = Stopwatch.GetTimestamp() - due;
            var number = message.Payload.Length == sizeof(long) ? BinaryPrimitives.ReadInt64LittleEndian(message.Payload.Span) : -1;
            if (number != index)
            {
                throw new InvalidOperationException($"request {index} was answered with {number} (payload of {message.Payload.Length} bytes).");
            }

            Interlocked.Add(ref _sum, number);
            last = Interlocked.Increment(ref _replies) == _expected;
        }
        catch (Exception caught)
        {
            // Kept for the runner, which rethrows it: a reply lost or wrong is not a latency.
            failure = caught;
        }

        // The room is given back before the signal, so that the runner never disposes it under a continuation.
        _room.Release();
        if (failure is not null)
        {
            Interlocked.CompareExchange(ref _fault, failure, null);
            _done.Set();
        }
        else if (last)
        {
            _done.Set();
        }
    }
}
