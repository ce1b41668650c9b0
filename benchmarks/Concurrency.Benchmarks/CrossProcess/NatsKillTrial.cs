using System.Buffers.Binary;
using System.Collections.Concurrent;
using System.Globalization;
using Concurrency.Messaging.Nats;
using NATS.Client.Core;

namespace Concurrency.Benchmarks.CrossProcess;

/// <summary>
/// <c>lab nats --kill</c>: for each mode and topology (one consumer, two sharing the work, two each getting everything),
/// one producer posts 1,000,000 numbered messages; a third of the way in, <c>nats-server</c> is killed with SIGKILL and
/// started again on the same store a second later. JetStream must lose nothing and hand nothing to a living consumer's
/// handler twice; Core must report every loss (each number never handled is one the consumers reported missing).
/// </summary>
internal static class NatsKillTrial
{
    private static readonly TimeSpan Outage = TimeSpan.FromSeconds(1);
    private static readonly TimeSpan RunLimit = TimeSpan.FromMinutes(5);

    private enum Topology
    {
        One,
        Shared,
        Broadcast,
    }

    public static LabOutcome Run(LabContext context, string executable)
    {
        var messages = context.Quick ? 20_000L : 1_000_000L;
        var rows = new List<IReadOnlyList<string>>();
        var failures = new List<string>();
        var runs = new[] { NatsDelivery.Core, NatsDelivery.JetStream }.SelectMany(mode => Enum.GetValues<Topology>().Select(topology => (mode, topology))).ToList();
        for (var i = 0; i < runs.Count; i++)
        {
            var (mode, topology) = runs[i];
            context.Report((double)i / runs.Count, $"{mode}, {topology}");
            (IReadOnlyList<string> Row, string? Failure) run;
            try
            {
                run = RunOne(mode, topology, messages, executable, context.Cancellation).GetAwaiter().GetResult();
            }
            catch (Exception e) when (e is not LabVerificationException)
            {
                throw new LabVerificationException($"{mode}, {topology}: {e}");
            }

            var (row, failure) = run;
            rows.Add(row);
            if (failure is not null)
            {
                failures.Add(failure);
            }
        }

        if (failures.Count > 0)
        {
            throw new LabVerificationException(string.Join(" ", failures));
        }

        var table = new LabTable(
            "Pipes over NATS: the server killed a third of the way in",
            ["mode", "consumers", "posted", "confirmed by the server", "handled", "lost, reported", "never handled", "handed to one handler twice", "handled by both sharing consumers", "repeats set aside", "possible repeats counted", "verdict"],
            rows,
            ["posted", "confirmed by the server", "handled", "lost, reported", "never handled", "handed to one handler twice", "handled by both sharing consumers", "repeats set aside", "possible repeats counted"],
            string.Create(CultureInfo.InvariantCulture, $"{messages:N0} messages per run; nats-server killed with SIGKILL after message {messages / 3:N0} and restarted on the same store {Outage.TotalSeconds:0} s later; the producer ends once every consumer has reconnected. Two consumers sharing the work are counted together; two each getting everything, each on its own (the cells sum them). JetStream passes with nothing lost, nothing handed to one consumer's handler twice, and every message two sharing consumers both handled (a redelivery after the crash reaching the other member) counted as a possible repeat; Core passes when every number never handled was reported lost and none was handled twice."));
        return new LabOutcome([table], []);
    }

    private static async Task<(IReadOnlyList<string> Row, string? Failure)> RunOne(NatsDelivery mode, Topology topology, long messages, string executable, CancellationToken cancellation)
    {
        var store = Directory.CreateTempSubdirectory("lab-nats-kill-").FullName;
        try
        {
            using var server = NatsServer.Start(executable, store);
            using var bound = CancellationTokenSource.CreateLinkedTokenSource(cancellation);
            bound.CancelAfter(RunLimit);
            var subject = string.Create(CultureInfo.InvariantCulture, $"kill.{mode.ToString().ToLowerInvariant()}.{topology.ToString().ToLowerInvariant()}");
            var consumerCount = topology == Topology.One ? 1 : 2;
            var connections = Enumerable.Range(0, consumerCount).Select(i => NatsEnds.Connect(server.Url, $"consumer-{i}")).ToList();
            await using var producerConnection = NatsEnds.Connect(server.Url, "producer");
            var tallies = Enumerable.Range(0, consumerCount).Select(_ => new int[messages + 1]).ToList(); // one per consumer: "twice" is per handler
            var reported = new ConcurrentQueue<NatsLoss>();
            var consumers = new List<NatsPipeConsumer<byte[]>>();
            try
            {
                for (var i = 0; i < consumerCount; i++)
                {
                    var tally = tallies[i];
                    var options = NatsEnds.Options(mode, subject) with
                    {
                        Group = mode == NatsDelivery.JetStream ? (topology == Topology.Broadcast ? $"group{i}" : "group") : (topology == Topology.Shared ? "group" : null),
                        LossReported = reported.Enqueue,
                        ServerTimeout = TimeSpan.FromSeconds(60),
                        AckWait = TimeSpan.FromSeconds(5),
                    };
                    consumers.Add(await NatsPipe.StartConsumerAsync<byte[]>(connections[i], options, m => Interlocked.Increment(ref tally[BinaryPrimitives.ReadInt64LittleEndian(m)]), cancellationToken: bound.Token).ConfigureAwait(false));
                }

                var producerOptions = NatsEnds.Options(mode, subject) with { ServerTimeout = TimeSpan.FromSeconds(60) };
                await using var producer = await NatsPipe.StartProducerAsync<byte[]>(producerConnection, producerOptions, cancellationToken: bound.Token).ConfigureAwait(false);
                for (var n = 1L; n <= messages; n++)
                {
                    var payload = new byte[NatsEnds.PayloadBytes];
                    BinaryPrimitives.WriteInt64LittleEndian(payload, n);
                    await producer.PostAsync(payload, bound.Token).ConfigureAwait(false);
                    if (n == messages / 3)
                    {
                        server.Kill();
                        await Task.Delay(Outage, bound.Token).ConfigureAwait(false);
                        server.Restart();
                    }
                }

                // Core's end marker is at most once too: the producer ends once every consumer is subscribed again, so
                // that the run ends by its markers (what was lost while they were away is what the trial counts).
                foreach (var connection in connections)
                {
                    while (connection.ConnectionState != NatsConnectionState.Open)
                    {
                        await Task.Delay(50, bound.Token).ConfigureAwait(false);
                    }

                    await connection.PingAsync(bound.Token).ConfigureAwait(false);
                }

                await producer.CompleteAsync(bound.Token).ConfigureAwait(false);
                await Task.WhenAll(consumers.Select(c => c.Completion)).WaitAsync(bound.Token).ConfigureAwait(false);
                return Judge(mode, topology, messages, producer.Confirmed, consumers, tallies, reported);
            }
            finally
            {
                foreach (var consumer in consumers)
                {
                    await consumer.DisposeAsync().ConfigureAwait(false);
                }

                foreach (var connection in connections)
                {
                    await connection.DisposeAsync().ConfigureAwait(false);
                }
            }
        }
        finally
        {
            NatsExperiment.TryDelete(store);
        }
    }

    private static (IReadOnlyList<string> Row, string? Failure) Judge(NatsDelivery mode, Topology topology, long messages, long confirmed, List<NatsPipeConsumer<byte[]>> consumers, List<int[]> tallies, ConcurrentQueue<NatsLoss> reported)
    {
        var counts = consumers.Select(c => c.Counts).ToList();

        // A group's counts are combined; broadcast consumers each stand alone, and the cells sum them.
        var views = topology == Topology.Shared ? [NatsPipeCounts.Combine(counts)] : counts;
        long handled = views.Sum(v => v.Handled), lost = views.Sum(v => v.Lost), repeats = views.Sum(v => v.Repeats), possible = views.Sum(v => v.PossibleRepeats);
        // Never handled: by no consumer of the group (sharing), or by each consumer in turn (each getting everything).
        // Twice: by one consumer's handler. Across the group: a message two sharing consumers both handled.
        long never = 0, twice = 0, acrossGroup = 0;
        for (var n = 1; n <= messages; n++)
        {
            if (topology == Topology.Shared)
            {
                var handlers = tallies.Count(t => t[n] > 0);
                never += handlers == 0 ? 1 : 0;
                acrossGroup += handlers > 1 ? 1 : 0;
            }
            else
            {
                never += tallies.Count(t => t[n] == 0);
            }

            twice += tallies.Count(t => t[n] > 1);
        }

        string? failure = null;
        if (mode == NatsDelivery.JetStream && (never != 0 || twice != 0 || acrossGroup > possible))
        {
            failure = $"JetStream {topology}: {never} never handled, {twice} handed to one handler twice, {acrossGroup} handled by two consumers of the group against {possible} counted as possible repeats.";
        }
        else if (mode == NatsDelivery.Core && (never != lost || twice != 0 || (topology != Topology.Shared && reported.Sum(l => l.Count) != lost)))
        {
            failure = $"Core {topology}: {never} never handled against {lost} reported lost ({reported.Sum(l => l.Count)} in the reports), {twice} handed twice.";
        }

        IReadOnlyList<string> row =
        [
            mode.ToString(),
            topology switch { Topology.One => "one", Topology.Shared => "two, sharing", _ => "two, each all" },
            Cell(messages),
            Cell(confirmed),
            Cell(handled),
            Cell(lost),
            Cell(never),
            Cell(twice),
            Cell(acrossGroup),
            Cell(repeats),
            Cell(possible),
            failure is null ? "pass" : "FAIL",
        ];
        return (row, failure);
    }

    private static string Cell(long value) => value.ToString("N0", CultureInfo.InvariantCulture);
}
