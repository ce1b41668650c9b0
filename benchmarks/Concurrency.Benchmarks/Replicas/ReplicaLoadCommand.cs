using System.CommandLine;
using System.Diagnostics;
using System.Globalization;
using Concurrency.Benchmarks.Backbone.Runs;
using Concurrency.Messaging.Grpc;
using Concurrency.Messaging.Sequences;
using HdrHistogram;
using NATS.Client.Core;

namespace Concurrency.Benchmarks.Replicas;

/// <summary>
/// <c>-- replica-load</c> (hidden): the client process of <c>lab replicas</c>. Drives one contender with
/// <c>--clients K</c> clients of <c>--callers C</c> concurrent callers each, closed loop for <c>--seconds S</c> or until
/// <c>--count N</c> identities, or open loop at <c>--rate R</c> (identities a second, timed from when each call was due);
/// checks every identity it got (no duplicates; each caller's increasing) and writes a <see cref="LoadResult"/>.
/// Contenders (<c>--kind</c>): <c>sequence</c> (<see cref="SequenceClient"/>s over the targets: replicas, or the
/// key-value block replicas), <c>echo</c> (<see cref="PeerClient"/>s to an echo <see cref="PeerServer"/>: the transport's
/// share), <c>in-process</c> (our sequence service, the actor kind, in this process) and <c>nats-cas</c> (one key of a
/// JetStream key-value bucket, compare-and-set per identity, NATS.Net used directly).
/// </summary>
internal static class ReplicaLoadCommand
{
    public const string Name = "replica-load";

    /// <summary>Calls each caller makes before the run, not counted in it.</summary>
    private const int WarmCalls = 20;

    /// <summary>The most identities a run keeps for its duplicate check (8 bytes each).</summary>
    private const int MostKept = 20_000_000;

    public static Command Create()
    {
        var kind = new Option<string>("--kind") { Required = true, Description = "sequence, echo, in-process or nats-cas" };
        var targets = new Option<string>("--targets") { DefaultValueFactory = _ => string.Empty, Description = "the servers, comma-separated (a NATS URL for nats-cas)" };
        var clients = CommonOptions.WholeNumber("--clients", "K", 8, 1, 1024, "clients (connections)");
        var callers = CommonOptions.WholeNumber("--callers", "C", 8, 1, 1024, "concurrent callers per client");
        var seconds = CommonOptions.Seconds("--seconds", 5, "how long to run");
        var count = new Option<long>("--count") { Description = "stop after this many identities instead (closed loop)" };
        var rate = new Option<double>("--rate") { Description = "open loop at this many identities a second" };
        var failover = CommonOptions.Seconds("--failover", 1, "the sequence clients' failover timeout");
        var warmup = CommonOptions.Seconds("--warmup", 2, "closed loop this long first, not counted (the servers' code compiled, the connections open)");
        var result = CommonOptions.Result();
        var command = new Command(Name, "The client process of lab replicas (started by it).") { kind, targets, clients, callers, seconds, count, rate, failover, warmup, result };
        command.Hidden = true;
        command.SetAction(parse =>
        {
            var plan = new LoadPlan(
                parse.GetValue(kind)!,
                parse.GetValue(targets)!.Split(',', StringSplitOptions.RemoveEmptyEntries),
                parse.GetValue(clients),
                parse.GetValue(callers),
                TimeSpan.FromSeconds(parse.GetValue(seconds)),
                parse.GetValue(count),
                parse.GetValue(rate),
                TimeSpan.FromSeconds(parse.GetValue(failover)),
                TimeSpan.FromSeconds(parse.GetValue(warmup)));
            var output = parse.InvocationConfiguration.Output;
            var outcome = RunAsync(plan, (fraction, step) => BenchmarkProcess.ReportProgress(output, fraction, step)).GetAwaiter().GetResult();
            if (parse.GetValue(result) is { } file)
            {
                BenchmarkProcess.WriteResult(file, outcome);
            }

            return outcome.Duplicates == 0 && outcome.OrderViolations == 0 ? 0 : 4;
        });
        return command;
    }

    /// <summary>What to run.</summary>
    internal sealed record LoadPlan(string Kind, string[] Targets, int Clients, int Callers, TimeSpan Duration, long Count, double Rate, TimeSpan Failover, TimeSpan Warmup);

    /// <summary>Runs the plan in this process.</summary>
    internal static async Task<LoadResult> RunAsync(LoadPlan plan, Action<double, string> progress)
    {
        var sources = await OpenAsync(plan).ConfigureAwait(false);
        try
        {
            // Warm: closed loop for the warm-up (each caller at least a few calls), so that the connections are open and the
            // servers' and this process's code is compiled (a fresh server runs its first seconds on unoptimised code);
            // not counted, but checked.
            var tally = new Tally(plan.Count > 0 ? plan.Count : 1_000_000);
            var warmUntil = Stopwatch.GetTimestamp() + (long)(plan.Warmup.TotalSeconds * Stopwatch.Frequency);
            await Task.WhenAll(sources.SelectMany(source => Enumerable.Range(0, plan.Callers).Select(async _ =>
            {
                for (var i = 0; i < WarmCalls || Stopwatch.GetTimestamp() < warmUntil; i++)
                {
                    tally.Add(await source.NextAsync().ConfigureAwait(false), counted: false);
                }
            }))).ConfigureAwait(false);
            return plan.Rate > 0 ? await OpenLoopAsync(plan, sources, tally).ConfigureAwait(false) : await ClosedLoopAsync(plan, sources, tally, progress).ConfigureAwait(false);
        }
        finally
        {
            foreach (var source in sources)
            {
                await source.DisposeAsync().ConfigureAwait(false);
            }
        }
    }

    private static async Task<LoadResult> ClosedLoopAsync(LoadPlan plan, Source[] sources, Tally tally, Action<double, string> progress)
    {
        using var stop = new CancellationTokenSource();
        var started = Stopwatch.GetTimestamp();
        if (plan.Count == 0)
        {
            stop.CancelAfter(plan.Duration);
        }

        var callers = sources.SelectMany(source => Enumerable.Range(0, plan.Callers).Select(_ => Task.Run(async () =>
        {
            var last = 0L;
            while (!stop.IsCancellationRequested)
            {
                long identity;
                try
                {
                    identity = await source.NextAsync().ConfigureAwait(false);
                }
                catch (Exception e) when (e is SequenceUnavailableException or PeerDeliveryException or PeerRemoteException or NatsException or InvalidOperationException)
                {
                    tally.Failed(e);
                    continue;
                }

                if (identity <= last && source.Ordered)
                {
                    tally.OutOfOrder();
                }

                last = identity;
                var total = tally.Add(identity);
                if (plan.Count > 0 && total >= plan.Count)
                {
                    await stop.CancelAsync().ConfigureAwait(false);
                }
                else if (plan.Count > 0 && total % Math.Max(1, plan.Count / 200) == 0)
                {
                    progress((double)total / plan.Count, string.Create(CultureInfo.InvariantCulture, $"{total:N0} identities"));
                }
            }
        }))).ToArray();
        await Task.WhenAll(callers).ConfigureAwait(false);
        var seconds = Stopwatch.GetElapsedTime(started).TotalSeconds;
        return tally.Result(seconds, sources.Sum(source => source.Failovers), histogram: null) with { Started = started, Ended = Stopwatch.GetTimestamp() };
    }

    // Open loop: call i is due at start + i / rate, issued then (late calls at once) and timed from when it was due.
    private static async Task<LoadResult> OpenLoopAsync(LoadPlan plan, Source[] sources, Tally tally)
    {
        var calls = (long)(plan.Rate * plan.Duration.TotalSeconds);
        var histogram = new LongHistogram(TimeSpan.FromMinutes(1).Ticks * 100, 3);
        var gate = new object();
        var pending = new List<Task>((int)Math.Min(calls, 1_000_000));
        var started = Stopwatch.GetTimestamp();

        // The issuer is a thread of its own: it sleeps until about a millisecond before a call is due, then spins, so it
        // neither holds a pool thread the calls' completions need nor spins a core away from the servers between calls.
        var issued = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var issuer = new Thread(() =>
        {
            var schedule = Backbone.Latency.Schedule.At(plan.Rate);
            var coarse = Stopwatch.Frequency / 1000 * 3 / 2;
            for (long i = 0; i < calls; i++)
            {
                var due = schedule.DueOf(i);
                while (due - Stopwatch.GetTimestamp() > coarse)
                {
                    Thread.Sleep(1);
                }

                while (Stopwatch.GetTimestamp() < due)
                {
                    Thread.SpinWait(20);
                }

                var source = sources[i % sources.Length];
                pending.Add(Call(source, due));
            }

            issued.SetResult();
        })
        { IsBackground = true, Name = "open-loop issuer" };
        issuer.Start();
        await issued.Task.ConfigureAwait(false); // the pending list is the issuer's until then
        await Task.WhenAll(pending).ConfigureAwait(false);
        var seconds = Stopwatch.GetElapsedTime(started).TotalSeconds;
        return tally.Result(seconds, sources.Sum(source => source.Failovers), histogram) with { Started = started, Ended = Stopwatch.GetTimestamp() };

        async Task Call(Source source, long due)
        {
            try
            {
                var identity = await source.NextAsync().ConfigureAwait(false);
                var nanoseconds = (long)((Stopwatch.GetTimestamp() - due) * (1e9 / Stopwatch.Frequency));
                lock (gate)
                {
                    histogram.RecordValue(Math.Max(1, nanoseconds));
                }

                tally.Add(identity);
            }
            catch (Exception e) when (e is SequenceUnavailableException or PeerDeliveryException or PeerRemoteException or NatsException or InvalidOperationException)
            {
                tally.Failed(e);
            }
        }
    }

    private static async Task<Source[]> OpenAsync(LoadPlan plan)
    {
        switch (plan.Kind)
        {
            case "sequence":
                return [.. Enumerable.Range(0, plan.Clients).Select(i => Source.Of(SequenceClient.Create(plan.Targets, new SequenceClientOptions
                {
                    FirstReplica = i % plan.Targets.Length,
                    FailoverTimeout = plan.Failover,
                    Name = string.Create(CultureInfo.InvariantCulture, $"load-{i}"),
                })))];
            case "echo":
                return [.. await Task.WhenAll(Enumerable.Range(0, plan.Clients).Select(async i => Source.Of(await PeerClient.ConnectAsync(plan.Targets[0]).ConfigureAwait(false), i))).ConfigureAwait(false)];
            case "in-process":
                var system = new Concurrency.Messaging.Actors.ActorSystem();
                var service = SequenceService.Create(SequenceServiceKind.Actor, system);
                return [.. Enumerable.Range(0, plan.Clients).Select(i => Source.Of(service, i == 0 ? system : null))];
            case "nats-cas":
                var connections = Enumerable.Range(0, plan.Clients).Select(i => new NatsConnection(new NatsOpts { Url = plan.Targets[0], Name = string.Create(CultureInfo.InvariantCulture, $"load-{i}") })).ToArray();
                return [.. await Task.WhenAll(connections.Select(async connection => Source.Of(await NatsKvSequence.OpenAsync(connection, NatsKvBucket, NatsKvKey, CancellationToken.None).ConfigureAwait(false), connection))).ConfigureAwait(false)];
            default:
                throw new UsageException($"replica-load: unknown --kind '{plan.Kind}' (sequence, echo, in-process, nats-cas).");
        }
    }

    /// <summary>The bucket and key the NATS yardsticks keep their sequence in.</summary>
    public const string NatsKvBucket = "lab-identities";

    public const string NatsKvKey = "sequence";

    /// <summary>One client of a contender: where identities come from, and how it is closed.</summary>
    private sealed class Source(Func<ValueTask<long>> next, Func<ValueTask> dispose, Func<long> failovers, bool ordered)
    {
        public bool Ordered => ordered;

        public long Failovers => failovers();

        public ValueTask<long> NextAsync() => next();

        public ValueTask DisposeAsync() => dispose();

        public static Source Of(SequenceClient client) => new(() => client.NextAsync(), client.DisposeAsync, () => client.FailoverCount, ordered: true);

        public static Source Of(PeerClient client, int index)
        {
            var sent = 0L;
            return new(async () =>
            {
                var number = Interlocked.Increment(ref sent);
                var reply = await client.SendAsync(new PeerMessage("next", "load", BitConverter.GetBytes(number))).ConfigureAwait(false);
                var echoed = BitConverter.ToInt64(reply.Payload.Span);
                if (echoed != number)
                {
                    throw new InvalidOperationException($"The echo answered {echoed} to {number}.");
                }

                // The echo hands out nothing: its number with the client's index below it, so the duplicate check still runs.
                return (number << 10) | (long)index;
            }, client.DisposeAsync, () => 0, ordered: true);
        }

        public static Source Of(ISequenceService service, Concurrency.Messaging.Actors.ActorSystem? owner) => new(
            () => service.NextAsync(),
            async () =>
            {
                if (owner is not null)
                {
                    await service.DisposeAsync().ConfigureAwait(false);
                    await owner.DisposeAsync().ConfigureAwait(false);
                }
            },
            () => 0,
            ordered: true);

        public static Source Of(NatsKvSequence sequence, NatsConnection connection) => new(
            () => sequence.NextAsync(CancellationToken.None),
            async () =>
            {
                await sequence.DisposeAsync().ConfigureAwait(false);
                await connection.DisposeAsync().ConfigureAwait(false);
            },
            () => 0,
            ordered: true);
    }

    /// <summary>Every identity a run got, checked as it comes: duplicates, per-replica counts, failures.</summary>
    private sealed class Tally(long expected)
    {
        private readonly HashSet<long> _seen = new((int)Math.Min(expected, MostKept));
        private readonly long[] _perReplica = new long[ReplicaIdentity.MaxReplicas];
        private long _count;
        private long _duplicates;
        private long _outOfOrder;
        private long _failed;
        private string? _firstFailure;

        public long Add(long identity, bool counted = true)
        {
            lock (_seen)
            {
                if (_seen.Count < MostKept && !_seen.Add(identity))
                {
                    _duplicates++;
                }

                if (!counted)
                {
                    return _count;
                }

                _perReplica[ReplicaIdentity.ReplicaOf(identity)]++;
                return ++_count;
            }
        }

        public void OutOfOrder() => Interlocked.Increment(ref _outOfOrder);

        public void Failed(Exception e)
        {
            Interlocked.Increment(ref _failed);
            Interlocked.CompareExchange(ref _firstFailure, $"{e.GetType().Name}: {e.Message}", null);
        }

        public LoadResult Result(double seconds, long failovers, HistogramBase? histogram)
        {
            lock (_seen)
            {
                double Percentile(double p) => histogram is null || histogram.TotalCount == 0 ? 0 : histogram.GetValueAtPercentile(p) / 1e3;
                return new LoadResult(
                    _count,
                    seconds,
                    [.. _perReplica.Select((count, replica) => (count, replica)).Where(x => x.count > 0).Select(x => new ReplicaCount(x.replica, x.count))],
                    _duplicates,
                    Interlocked.Read(ref _outOfOrder),
                    Interlocked.Read(ref _failed),
                    _firstFailure,
                    failovers,
                    Percentile(50),
                    Percentile(99),
                    Percentile(99.9));
            }
        }
    }
}

/// <summary>How many identities one replica handed out in a load run.</summary>
internal sealed record ReplicaCount(int Replica, long Count);

/// <summary>What a load run got: counts, checks, and (open loop) the latency percentiles in microseconds.</summary>
internal sealed record LoadResult(
    long Count,
    double Seconds,
    ReplicaCount[] PerReplica,
    long Duplicates,
    long OrderViolations,
    long Failed,
    string? FirstFailure,
    long Failovers,
    double P50Micros,
    double P99Micros,
    double P999Micros)
{
    /// <summary>Gets when the measured run began, after the warm-up (the machine's monotonic clock, which the replicas' records share).</summary>
    public long Started { get; init; }

    /// <summary>Gets when the measured run ended.</summary>
    public long Ended { get; init; }

    public double PerSecond => Count / Seconds;
}
