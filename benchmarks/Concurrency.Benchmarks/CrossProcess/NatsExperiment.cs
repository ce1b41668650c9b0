using System.Diagnostics;
using System.Globalization;
using Concurrency.Benchmarks.Backbone.Latency;
using Concurrency.Messaging.Nats;
using HdrHistogram;
using NATS.Client.Core;
using NATS.Client.JetStream;

namespace Concurrency.Benchmarks.CrossProcess;

/// <summary>
/// <c>lab nats</c>: our pipes over NATS against NATS.Net used directly, in the same shape, each end in a process of its
/// own; with <c>--kill</c>, the crash trial instead (<see cref="NatsKillTrial"/>).
/// </summary>
/// <param name="findNatsServer">Finds the <c>nats-server</c> executable, or gives null where there is none (the
/// experiment then says so and measures nothing); default <see cref="NatsServer.Find"/>.</param>
public sealed class NatsExperiment(Func<string?>? findNatsServer = null) : ILabExperiment
{
    /// <summary>Our msg/s ÷ NATS.Net's, each mode: the issue's goal.</summary>
    private const double SpeedGoal = 0.8;

    /// <summary>Our p99 at most this × NATS.Net's, at one offered rate both sustain.</summary>
    private const double LatencyGoal = 1.25;

    private static readonly NatsDelivery[] Modes = [NatsDelivery.Core, NatsDelivery.JetStream];

    /// <summary>The offered rate of the latency rounds: about half what either side sustains on the measuring machine.</summary>
    private static readonly Dictionary<NatsDelivery, double> PacedRate = new() { [NatsDelivery.Core] = 1_000_000, [NatsDelivery.JetStream] = 50_000 };
    private static readonly NatsSide[] Sides = [NatsSide.Direct, NatsSide.Ours];

    /// <summary>The paced rounds' order: each side twice, neither always first; each side's rounds pooled.</summary>
    private static readonly NatsSide[] PacedOrder = [NatsSide.Direct, NatsSide.Ours, NatsSide.Ours, NatsSide.Direct];

    /// <summary>A paced round's length in seconds (quick: a quarter); a side's paced warm-up is half of it.</summary>
    private const double PacedSeconds = 2;

    public string Name => "nats";

    public string Title => "Pipes over NATS: ours against NATS.Net used directly";

    public string Description => "Core and JetStream, one producer and one consumer in two processes: msg/s, CPU per message at each end and the server, p50/p99 at one rate; --kill: the crash trial.";

    public string Method =>
        """
        The issue measured NATS.Net 3.3.2 used directly against Debian's `nats-server` 2.9.10 on this 2-core machine, 64 B:
        core pub/sub one to one about 0.83-0.91 M msg/s with nothing dropped; JetStream publishing with message ids and 256
        outstanding about 79-95 k/s; a pull consumer acknowledging each message about 124-150 k/s. Published figures for
        other hardware (`nats bench`, a 10-core laptop, server 2.12): core pub/sub 4.93 M msg/s at 16 B, JetStream asynchronous
        file publish 404 k/s, durable consumer with explicit acknowledgements 290 k/s.

        Here the lab starts `nats-server` with JetStream on a temporary store and a free loopback port. The producer runs in
        the lab's process, the consumer in a process of its own (`nats-consume`), each on its own connection; 64-byte
        messages, each carrying its number and the time it was posted. **NATS.Net directly**: Core, a publish loop and a
        subscription reader; JetStream, publishing with message ids and 256 outstanding, and a durable pull consumer
        acknowledging each message. **Ours**: `NatsPipeProducer` and `NatsPipeConsumer` in the same shape (the same
        window, stream and consumer settings; our 17-byte envelope on every message). Each side first runs a warm-up round;
        then rounds alternate between the sides (head to head), and each round is verified (count and sum of the numbers)
        and its stream deleted. msg/s is messages ÷ (last handled − first posted); CPU per message is each process's CPU
        time over the round ÷ messages. Then the sides run at one offered rate both sustain (Core 1,000,000/s,
        JetStream 50,000/s: about half of either side's msg/s here; lower where a side did not reach twice that), open loop
        in steps of about a millisecond, and the consumer records each message's time from its post to its handler (one
        clock: every process on the machine reads the same monotonic clock): first a paced warm-up of 1 s for each side
        (the unpaced rounds leave cold what only a paced post takes: a window never full, a consumer waiting for each
        message), then four paced rounds of 2 s in the order NATS.Net, ours, ours, NATS.Net, each side's two pooled into
        one histogram: p50 and p99. One round's p99 is too few messages to compare (one side's rounds spread 5.6–12.8 ms
        at JetStream's rate here), and a fixed order would hand one side the machine's drift.
        """;

    public bool PerCoreCount => false;

    public LabOutcome Run(LabContext context)
    {
        ArgumentNullException.ThrowIfNull(context);
        var executable = (findNatsServer ?? (() => NatsServer.Find()))();
        if (executable is null)
        {
            return new LabOutcome([new LabTable("NATS", ["note"], [[NatsServer.SkipLine]])], []);
        }

        return context.Kill ? NatsKillTrial.Run(context, executable) : Measure(context, executable);
    }

    private static LabOutcome Measure(LabContext context, string executable)
    {
        var store = Directory.CreateTempSubdirectory("lab-nats-").FullName;
        try
        {
            using var server = NatsServer.Start(executable, store);
            using var consumer = ConsumerProcess.Start(server.Url);
            using var serverProcess = Process.GetProcessById(server.ProcessId);
            var connection = NatsEnds.Connect(server.Url, "lab-producer");
            try
            {
                var rounds = context.Quick ? 1 : 3;
                var size = new Dictionary<NatsDelivery, long>
                {
                    [NatsDelivery.Core] = context.Quick ? 20_000 : 1_000_000,
                    [NatsDelivery.JetStream] = context.Quick ? 5_000 : 200_000,
                };
                var runner = new Rounds(context, connection, consumer, serverProcess);
                var results = new Dictionary<(NatsDelivery, NatsSide), List<Round>>();
                var latency = new Dictionary<(NatsDelivery, NatsSide), LatencyDistribution>();
                var rates = new Dictionary<NatsDelivery, double>();
                var steps = Modes.Length * (Sides.Length * (rounds + 2) + PacedOrder.Length);
                foreach (var mode in Modes)
                {
                    foreach (var side in Sides)
                    {
                        runner.Run(mode, side, size[mode] / 10, rate: null, steps, "warm-up");
                        results[(mode, side)] = [];
                    }

                    // Head to head: the sides alternate, and which goes first alternates too.
                    for (var r = 0; r < rounds; r++)
                    {
                        foreach (var side in r % 2 == 0 ? Sides : [.. Sides.Reverse()])
                        {
                            results[(mode, side)].Add(runner.Run(mode, side, size[mode], rate: null, steps, $"round {r + 1}"));
                        }
                    }

                    // One offered rate both sustain: the mode's fixed rate (so launches compare), or half the slower side's
                    // median where that side did not reach twice the fixed rate.
                    var slower = Sides.Min(side => LabSample.Of([.. results[(mode, side)].Select(x => x.Rate)]).Median);
                    var rate = Math.Min(PacedRate[mode], TwoDigits(slower / 2));
                    rates[mode] = rate;
                    var seconds = context.Quick ? PacedSeconds / 4 : PacedSeconds;
                    foreach (var side in Sides)
                    {
                        runner.Run(mode, side, (long)(rate * seconds / 2), rate, steps, string.Create(CultureInfo.InvariantCulture, $"paced warm-up at {rate:N0}/s"));
                    }

                    var pooled = Sides.ToDictionary(side => side, _ => new List<HistogramBase>());
                    foreach (var side in PacedOrder)
                    {
                        pooled[side].Add(runner.Run(mode, side, (long)(rate * seconds), rate, steps, string.Create(CultureInfo.InvariantCulture, $"paced at {rate:N0}/s")).Latency);
                    }

                    foreach (var side in Sides)
                    {
                        latency[(mode, side)] = LatencyDistribution.Merge(pooled[side]);
                    }
                }

                return Outcome(results, latency, rates, size);
            }
            finally
            {
                connection.DisposeAsync().AsTask().GetAwaiter().GetResult();
            }
        }
        finally
        {
            TryDelete(store);
        }
    }

    /// <summary>One verified round: msg/s, CPU per message at each end and at the server, and each message's time from post to handler (ns).</summary>
    private sealed record Round(double Rate, double ProducerCpu, double ConsumerCpu, double ServerCpu, HistogramBase Latency);

    /// <summary>Runs rounds: the consumer told first, the producer here, the server's and both processes' CPU read around it.</summary>
    private sealed class Rounds(LabContext context, NatsConnection connection, ConsumerProcess consumer, Process server)
    {
        private int _step;
        private int _subject;

        public Round Run(NatsDelivery mode, NatsSide side, long messages, double? rate, int steps, string what)
        {
            context.Report((double)_step++ / steps, $"{mode}, {(side == NatsSide.Ours ? "ours" : "NATS.Net")}: {what}");
            var subject = string.Create(CultureInfo.InvariantCulture, $"lab.{mode.ToString().ToLowerInvariant()}.r{++_subject}");
            consumer.Begin(mode, side, subject, messages);
            using var self = Process.GetCurrentProcess();
            var cpu = self.TotalProcessorTime;
            server.Refresh();
            var serverCpu = server.TotalProcessorTime;
            var started = NatsEnds.ProduceAsync(connection, mode, side, subject, messages, rate, context.Cancellation).GetAwaiter().GetResult();
            var done = consumer.End();
            self.Refresh();
            server.Refresh();
            var producerCpu = (self.TotalProcessorTime - cpu).Ticks * 100.0 / messages;
            var serverCost = (server.TotalProcessorTime - serverCpu).Ticks * 100.0 / messages;
            var expected = messages * (messages + 1) / 2;
            if (done.Handled != messages || done.Checksum != expected)
            {
                throw new LabVerificationException(string.Create(CultureInfo.InvariantCulture, $"{mode} {side} {what}: handled {done.Handled} of {messages}, sum {done.Checksum}, expected {expected}."));
            }

            if (mode == NatsDelivery.JetStream)
            {
                // Each round's stream goes, so the store holds one round at most.
                new NatsJSContext(connection).DeleteStreamAsync(NatsEnds.StreamFor(subject).Name!, context.Cancellation).AsTask().GetAwaiter().GetResult();
            }

            var seconds = (done.LastHandled - started) / (double)Stopwatch.Frequency;
            return new Round(messages / seconds, producerCpu, done.CpuNanoseconds / (double)messages, serverCost, done.Latency);
        }
    }

    private static LabOutcome Outcome(Dictionary<(NatsDelivery, NatsSide), List<Round>> results, Dictionary<(NatsDelivery, NatsSide), LatencyDistribution> latency, Dictionary<NatsDelivery, double> rates, Dictionary<NatsDelivery, long> size)
    {
        var figures = new List<LabFigure>();
        var speedRows = new List<IReadOnlyList<string>>();
        var goalRows = new List<IReadOnlyList<string>>();
        foreach (var mode in Modes)
        {
            var conditions = string.Create(CultureInfo.InvariantCulture, $"{mode}, 64 B, one producer, one consumer, two processes");
            foreach (var side in Sides)
            {
                var rounds = results[(mode, side)];
                var paced = latency[(mode, side)];
                speedRows.Add(
                [
                    mode.ToString(),
                    Contender(mode, side),
                    Cell(LabSample.Of([.. rounds.Select(r => r.Rate)]).Median / 1e3),
                    Cell(LabSample.Of([.. rounds.Select(r => r.ProducerCpu)]).Median),
                    Cell(LabSample.Of([.. rounds.Select(r => r.ConsumerCpu)]).Median),
                    Cell(LabSample.Of([.. rounds.Select(r => r.ServerCpu)]).Median),
                    Cell(rates[mode]),
                    Cell(paced.P50),
                    Cell(paced.P99),
                ]);
                figures.Add(new LabFigure(Contender(mode, side), Family(side), conditions, "msg/s", [.. rounds.Select(r => r.Rate)]));
                figures.Add(new LabFigure(Contender(mode, side), Family(side), conditions + PacedConditions(mode), "p99 µs", [paced.P99]));
            }

            var ratios = HeadToHead.Ratios([.. results[(mode, NatsSide.Ours)].Select(r => r.Rate)], [.. results[(mode, NatsSide.Direct)].Select(r => r.Rate)]);
            var speed = new Goal($"{mode}: our msg/s ÷ NATS.Net's", [Contender(mode, NatsSide.Ours)], [Contender(mode, NatsSide.Direct)], SpeedGoal) { MinLaunches = 1 }.Judge([ratios]);
            goalRows.Add([speed.Goal.Name, Ratio(speed.Median), string.Create(CultureInfo.InvariantCulture, $"≥ {SpeedGoal:0.00}"), speed.Met ? "met" : "not met"]);
            var p99 = latency[(mode, NatsSide.Direct)].P99 / latency[(mode, NatsSide.Ours)].P99;
            var tail = new Goal($"{mode}: NATS.Net's p99 ÷ ours, paced", [Contender(mode, NatsSide.Ours)], [Contender(mode, NatsSide.Direct)], 1 / LatencyGoal) { MinLaunches = 1 }.Judge(p99, p99, p99, launches: 1);
            goalRows.Add([tail.Goal.Name, Ratio(p99), string.Create(CultureInfo.InvariantCulture, $"≥ {1 / LatencyGoal:0.00} (our p99 ≤ {LatencyGoal:0.00}× theirs)"), tail.Met ? "met" : "not met"]);
        }

        var speedTable = new LabTable(
            "Pipes over NATS: msg/s, CPU per message, latency",
            ["mode", "contender", "k msg/s", "producer CPU ns/msg", "consumer CPU ns/msg", "server CPU ns/msg", "paced at msg/s", "p50 µs, paced", "p99 µs, paced"],
            speedRows,
            ["k msg/s", "producer CPU ns/msg", "consumer CPU ns/msg", "server CPU ns/msg", "paced at msg/s", "p50 µs, paced", "p99 µs, paced"],
            string.Create(CultureInfo.InvariantCulture, $"Each launch: the median of its rounds (Core {size[NatsDelivery.Core]:N0} messages a round, JetStream {size[NatsDelivery.JetStream]:N0}); paced: Core at {PacedRate[NatsDelivery.Core]:N0}/s, JetStream at {PacedRate[NatsDelivery.JetStream]:N0}/s (or half the slower side's msg/s, where lower), after a paced warm-up of each side: two rounds of {PacedSeconds:0} s a side in the order NATS.Net, ours, ours, NATS.Net, pooled."));
        var goalTable = new LabTable(
            "Pipes over NATS: the issue's goals",
            ["goal", "ratio", "asks", "verdict"],
            goalRows,
            ["ratio"],
            "The msg/s ratio is the median of the rounds' ratios (head to head within each round); the p99 ratio is NATS.Net's over ours at the paced rate. With several launches, the ratio is the median launch [lowest, highest], and the verdicts are each launch's.");
        return new LabOutcome([speedTable, goalTable], [], figures);
    }

    /// <summary>
    /// The paced figures' conditions: the rule, not the launch's rate, which follows the slower side's msg/s where that is
    /// below twice the fixed rate and so differs from launch to launch (a figure named by it would not merge across launches).
    /// </summary>
    private static string PacedConditions(NatsDelivery mode)
        => string.Create(CultureInfo.InvariantCulture, $", paced at {PacedRate[mode]:0}/s or half the slower side's msg/s where lower");

    private static string Ratio(double value) => value.ToString("F2", CultureInfo.InvariantCulture);

    private static string Contender(NatsDelivery mode, NatsSide side) => side == NatsSide.Ours ? $"NatsPipe ({mode})" : $"NATS.Net ({mode})";

    private static ContenderFamily Family(NatsSide side) => side == NatsSide.Ours ? ContenderFamily.Ours : ContenderFamily.Peer;

    private static string Cell(double value) => value.ToString("N0", CultureInfo.InvariantCulture);

    private static double TwoDigits(double value)
    {
        var scale = Math.Pow(10, Math.Floor(Math.Log10(value)) - 1);
        return Math.Floor(value / scale) * scale;
    }

    internal static void TryDelete(string folder)
    {
        try
        {
            Directory.Delete(folder, recursive: true);
        }
        catch (IOException)
        {
            // The system's temporary folder: left for it to clean.
        }
    }

    /// <summary>The consumer end, <c>nats-consume</c>, as a child process that takes rounds on its standard input.</summary>
    private sealed class ConsumerProcess : IDisposable
    {
        private static readonly TimeSpan ReadyLimit = TimeSpan.FromSeconds(60);
        private static readonly TimeSpan RoundLimit = TimeSpan.FromMinutes(5);
        private readonly Process _process;
        private readonly Task<string> _errors;

        private ConsumerProcess(Process process)
        {
            _process = process;
            _errors = process.StandardError.ReadToEndAsync();
        }

        public static ConsumerProcess Start(string url)
        {
            var start = BenchmarkProcess.StartInfo([NatsConsumeCommand.Name, "--url", url]);
            start.RedirectStandardInput = true;
            start.RedirectStandardError = true;
            return new ConsumerProcess(Process.Start(start) ?? throw new InvalidOperationException("Could not start the NATS consumer process."));
        }

        public void Begin(NatsDelivery mode, NatsSide side, string subject, long messages)
        {
            _process.StandardInput.WriteLine(NatsConsumeCommand.Round(mode, side, subject, messages));
            _process.StandardInput.Flush();
            Expect(NatsConsumeCommand.Ready, ReadyLimit);
        }

        public (long Handled, long Checksum, long LastHandled, long CpuNanoseconds, HistogramBase Latency) End()
        {
            var parts = Expect(NatsConsumeCommand.Done, RoundLimit).Split(' ');
            long At(int i) => long.Parse(parts[i], CultureInfo.InvariantCulture);
            return (At(1), At(2), At(3), At(4), NatsConsumeCommand.Decode(parts[5]));
        }

        public void Dispose()
        {
            _process.StandardInput.Close();
            if (!_process.WaitForExit(TimeSpan.FromSeconds(30)))
            {
                _process.Kill(entireProcessTree: true);
            }

            _process.Dispose();
        }

        private string Expect(string word, TimeSpan limit)
        {
            var line = _process.StandardOutput.ReadLineAsync();
            if (!line.Wait(limit) || line.Result is not { } text || !text.StartsWith(word, StringComparison.Ordinal))
            {
                var said = line.IsCompletedSuccessfully ? line.Result : "(nothing)";
                var errors = _process.HasExited ? _errors.Result : string.Empty;
                throw new LabVerificationException($"The NATS consumer process did not say '{word}' within {limit.TotalSeconds:0} s: {said} {errors}");
            }

            return text;
        }
    }
}
