using System.Diagnostics;
using System.Globalization;
using Concurrency.Benchmarks.CrossProcess;

namespace Concurrency.Benchmarks.Replicas;

/// <summary>
/// <c>lab replicas</c>: identity replicas (<c>replica</c> processes, 1, 3 and 5 on loopback) driven by a client process
/// (<c>replica-load</c>), beside the yardsticks in the same run: one echo <c>PeerServer</c> (the transport's share), our
/// sequence service inside one process, and a strongly consistent sequence in NATS JetStream's key-value store (blocks
/// reserved with compare-and-set behind the same transport, and compare-and-set per identity used directly); then
/// staleness for three synchronization periods from the replicas' counter records. With <c>--kill</c>, the crash run
/// instead (<see cref="ReplicaKillTrial"/>).
/// </summary>
/// <param name="findNatsServer">Finds <c>nats-server</c>, or null where there is none (its rows then say so); default <see cref="NatsServer.Find"/>.</param>
public sealed class ReplicasExperiment(Func<string?>? findNatsServer = null) : ILabExperiment
{
    private const int Clients = 8;
    private const int Callers = 8;

    private static readonly int[] Periods = [10, 100, 1_000];

    public string Name => "replicas";

    public string Title => "Identity replicas across processes: ours beside one echo server, one process, and NATS's key-value store";

    public string Description => "SequenceReplica ×1/×3/×5 on loopback: identities/s in all and per replica, NextAsync p50/p99/p99.9 at one rate, staleness at 10 ms/100 ms/1 s; --kill: the crash run.";

    public string Method =>
        """
        Seed 000's distributed system: each replica hands out identities (a counter in the high bits, its id in the low
        10), reserves them on disk a block at a time, and exchanges counters with every peer each period, both keeping the
        larger (docs/replicas.md). The issue quotes NATS.Net used directly against Debian's `nats-server` 2.9.10 here, one key
        of a key-value bucket with compare-and-set per identity: about 3,500 identities/s with one client, 2,400 with 8 and
        760 with 64, the rest lost to conflicts.

        Here every server is a process of its own on loopback, started fresh for its rows: `replica` processes (1, 3, 5;
        period 100 ms, block 65,536), one `serve` process for the echo `PeerServer`, and three `kv-replica` processes that
        answer the same requests from blocks of 1,000 reserved with compare-and-set in JetStream's key-value store (a
        `nats-server` with `-js` on a temporary store). One client process (`replica-load`, fresh for each row) runs 8
        clients (a `SequenceClient`, a `PeerClient` or a NATS connection each) of 8 concurrent callers: 2 s of closed loop
        first, not counted (a fresh server runs its first seconds on unoptimised code: warm and cold apart), then closed loop
        for the throughput rows, then open loop at one offered rate every contender sustains, each call timed from when it
        was due. Every identity is checked: no duplicates, each caller's increasing. "One process" is our sequence service
        (the actor kind) in the client process itself. Staleness: 3 replicas with counter records, open loop for a few
        seconds, then quiet for two periods; for each identity a replica recorded handing out (sampled every 100 µs), the
        time until every other replica's counter passed it; the goal's round trip is the 3 replicas' p50 at the paced rate.
        """;

    public bool PerCoreCount => false;

    public LabOutcome Run(LabContext context)
    {
        ArgumentNullException.ThrowIfNull(context);
        if (context.Peers.Replicas is { } remote)
        {
            return context.Kill
                ? throw new LabVerificationException("lab replicas --kill kills replicas it started itself: it cannot be combined with --peers.")
                : MeasureRemote(context, remote);
        }

        var executable = (findNatsServer ?? (() => NatsServer.Find()))();
        return context.Kill ? ReplicaKillTrial.Run(context) : Measure(context, executable);
    }

    // Replicas started elsewhere (other machines): the same load and checks, no yardsticks, no staleness (one clock needed).
    private static LabOutcome MeasureRemote(LabContext context, IReadOnlyList<string> addresses)
    {
        var name = string.Create(CultureInfo.InvariantCulture, $"SequenceReplica ×{addresses.Count} (--peers)");
        context.Report(0, $"{name}: closed loop");
        var speed = Load(context, "sequence", addresses, ["--seconds", context.Quick ? "0.5" : "3"], name + ", closed loop");
        context.Report(0.5, $"{name}: paced");
        var paced = Load(context, "sequence", addresses, ["--seconds", context.Quick ? "0.5" : "10", "--rate", context.Quick ? "200" : "500"], name + ", paced");
        var contender = new Contender(name, ContenderFamily.Ours, "sequence", () => new Servers(addresses, () => { }));
        var outcome = Outcome([(contender, speed, paced)], [], roundTripMs: 0, context.Quick ? 200 : 500, context.Quick ? 0.5 : 3, haveNats: false);
        return outcome with
        {
            Tables = [outcome.Tables[0], new LabTable("Staleness", ["note"], [["Not measured against --peers: staleness compares timestamps of several replicas, which needs one clock (one machine)."]])],
        };
    }

    private static LabOutcome Measure(LabContext context, string? natsExecutable)
    {
        var root = Directory.CreateTempSubdirectory("lab-replicas-").FullName;
        try
        {
            using var nats = natsExecutable is null ? null : NatsServer.Start(natsExecutable, Path.Combine(root, "nats"));
            var seconds = context.Quick ? 0.5 : 3;
            var pacedRate = context.Quick ? 200.0 : 500;
            var pacedSeconds = context.Quick ? 0.5 : 10;
            var contenders = Contenders(root, nats).ToList();
            var steps = contenders.Count * 2 + Periods.Length;
            var step = 0;
            var rows = new List<(Contender Contender, LoadResult Speed, LoadResult Paced)>();
            foreach (var contender in contenders)
            {
                using var servers = contender.Start();
                context.Report((double)step++ / steps, $"{contender.Name}: closed loop");
                var speed = Load(context, contender.Kind, servers.Targets, ["--seconds", Number(seconds)], $"{contender.Name}, closed loop");
                context.Report((double)step++ / steps, $"{contender.Name}: paced at {pacedRate:N0}/s");
                var paced = Load(context, contender.Kind, servers.Targets, ["--seconds", Number(pacedSeconds), "--rate", Number(pacedRate)], $"{contender.Name}, paced");
                rows.Add((contender, speed, paced));
            }

            var roundTrip = rows.First(r => r.Contender.Name == Three).Paced.P50Micros / 1e3;
            var staleness = new List<(int Period, List<long> Ticks, int Never)>();
            foreach (var period in Periods)
            {
                context.Report((double)step++ / steps, string.Create(CultureInfo.InvariantCulture, $"staleness, period {period} ms"));
                staleness.Add(Staleness(context, root, period));
            }

            return Outcome(rows, staleness, roundTrip, pacedRate, seconds, natsExecutable is not null);
        }
        finally
        {
            NatsExperiment.TryDelete(root);
        }
    }

    /// <summary>The metric of the paced rows' p99, which the decision table shows beside the throughput.</summary>
    internal const string PacedP99 = "p99 µs";

    internal const string Echo = "PeerServer echo (the transport)";
    internal const string One = "SequenceReplica ×1";
    internal const string Three = "SequenceReplica ×3";
    internal const string Five = "SequenceReplica ×5";
    internal const string KvBlocks = "NATS KV blocks ×3 (same transport)";
    internal const string InProcess = "sequence service, one process";
    internal const string KvCas = "NATS KV compare-and-set per identity";

    private static IEnumerable<Contender> Contenders(string root, NatsServer? nats)
    {
        yield return new Contender(Echo, ContenderFamily.Ceiling, "echo", () =>
        {
            var peer = PeerProcess.Start();
            return new Servers([peer.Peers.Server!.ToString()], peer.Dispose);
        });
        foreach (var (name, size) in new[] { (One, 1), (Three, 3), (Five, 5) })
        {
            yield return new Contender(name, ContenderFamily.Ours, "sequence", () => Cluster(root, size, periodMs: 100, records: false).AsServers());
        }

        if (nats is not null)
        {
            yield return new Contender(KvBlocks, ContenderFamily.Peer, "sequence", () =>
            {
                var addresses = LoopbackPorts.FreeAddresses(3);
                var processes = addresses.Select((address, id) => ReplicaProcess.StartKeyValue(id, address, nats.Url)).ToList();
                return new Servers(addresses, () => processes.ForEach(p => p.Dispose()));
            });
        }

        yield return new Contender(InProcess, ContenderFamily.Ceiling, "in-process", () => new Servers([], () => { }));
        if (nats is not null)
        {
            yield return new Contender(KvCas, ContenderFamily.Peer, "nats-cas", () => new Servers([nats.Url], () => { }));
        }
    }

    /// <summary>Whether a contender is one of the three-server rows the decision table compares (not one replica alone, not a yardstick).</summary>
    internal static bool IsClusterOfThree(string contender) => contender is Three or KvBlocks or KvCas;

    /// <summary>A cluster of <paramref name="size"/> replica processes, each on a folder of its own under <paramref name="root"/>.</summary>
    internal static ReplicaCluster Cluster(string root, int size, int periodMs, bool records)
    {
        var folder = Directory.CreateDirectory(Path.Combine(root, "cluster-" + Guid.NewGuid().ToString("N")[..8])).FullName;
        var addresses = LoopbackPorts.FreeAddresses(size);
        var processes = new List<ReplicaProcess>();
        try
        {
            for (var id = 0; id < size; id++)
            {
                var data = Path.Combine(folder, id.ToString(CultureInfo.InvariantCulture));
                processes.Add(ReplicaProcess.Start(id, addresses, data, periodMs, records ? data + ".records" : null));
            }
        }
        catch
        {
            processes.ForEach(p => p.Dispose());
            throw;
        }

        return new ReplicaCluster(folder, addresses, processes);
    }

    internal static LoadResult Load(LabContext context, string kind, IReadOnlyList<string> targets, string[] extra, string what)
    {
        var arguments = ChildArguments.Bare(
        [
            ReplicaLoadCommand.Name, "--kind", kind, "--targets", string.Join(',', targets),
            "--clients", Number(Clients), "--callers", Number(Callers), "--warmup", context.Quick ? "0.2" : "2", .. extra,
        ]);
        var result = BenchmarkProcess.RunForResult<LoadResult>(arguments, null, (_, _) => { }, TimeSpan.FromMinutes(10), $"the load of {what}");
        if (result.Duplicates != 0 || result.OrderViolations != 0 || result.Count == 0)
        {
            throw new LabVerificationException(string.Create(CultureInfo.InvariantCulture, $"{what}: {result.Count:N0} identities, {result.Duplicates} duplicates, {result.OrderViolations} out of a caller's order, {result.Failed} failed ({result.FirstFailure})."));
        }

        return result;
    }

    private static (int Period, List<long> Ticks, int Never) Staleness(LabContext context, string root, int period)
    {
        var cluster = Cluster(root, 3, period, records: true);
        LoadResult load;
        try
        {
            load = Load(context, "sequence", cluster.Addresses, ["--seconds", context.Quick ? "1" : "4", "--rate", "5000"], string.Create(CultureInfo.InvariantCulture, $"staleness at {period} ms"));
            Thread.Sleep(TimeSpan.FromMilliseconds(3 * period + 200)); // quiet: the last hand-outs reach every replica
        }
        finally
        {
            cluster.Dispose(); // each replica writes its records as it stops
        }

        var records = cluster.Processes.Select(p => ReplicaStaleness.Read(Path.Combine(cluster.Folder, p.Id.ToString(CultureInfo.InvariantCulture) + ".records"))).ToList();
        var (ticks, never) = ReplicaStaleness.Measure(records, load.Started, load.Ended);
        if (ticks.Count == 0)
        {
            throw new LabVerificationException($"Staleness at {period} ms: no hand-out was recorded.");
        }

        return (period, ticks, never);
    }

    private static LabOutcome Outcome(List<(Contender Contender, LoadResult Speed, LoadResult Paced)> rows, List<(int Period, List<long> Ticks, int Never)> staleness, double roundTripMs, double pacedRate, double seconds, bool haveNats)
    {
        var figures = new List<LabFigure>();
        var speedRows = new List<IReadOnlyList<string>>();
        foreach (var (contender, speed, paced) in rows)
        {
            var perReplica = contender.Kind == "sequence" && contender.Name != KvBlocks
                ? speed.PerReplica.Select(r => r.Count / speed.Seconds / 1e3).ToArray()
                : [];
            speedRows.Add(
            [
                contender.Name, Cell(speed.PerSecond / 1e3),
                perReplica.Length == 0 ? "–" : Cell(perReplica.Min()), perReplica.Length == 0 ? "–" : Cell(perReplica.Max()),
                Cell(paced.P50Micros), Cell(paced.P99Micros), Cell(paced.P999Micros), Cell(speed.Failed + paced.Failed),
            ]);
            figures.Add(new LabFigure(contender.Name, contender.Family, "identities, 8 clients × 8 callers, loopback", Measurement.IdentitiesPerSecond, [speed.PerSecond]));
            figures.Add(new LabFigure(contender.Name, contender.Family, string.Create(CultureInfo.InvariantCulture, $"identities, paced at {pacedRate:0}/s"), PacedP99, [paced.P99Micros]));
        }

        double Rate(string name) => rows.First(r => r.Contender.Name == name).Speed.PerSecond;
        bool Has(string name) => rows.Any(r => r.Contender.Name == name);
        var goals = new List<IReadOnlyList<string>>();
        if (Has(One) && Has(Echo))
        {
            goals.Add(GoalRow("one replica ÷ one echo PeerServer", Rate(One) / Rate(Echo), 0.5));
        }

        if (haveNats)
        {
            goals.Add(GoalRow("3 replicas ÷ NATS KV blocks ×3", Rate(Three) / Rate(KvBlocks), 1));
            goals.Add(GoalRow("3 replicas ÷ NATS KV compare-and-set", Rate(Three) / Rate(KvCas), 100));
        }
        else if (Has(Three))
        {
            goals.Add(["NATS yardsticks", "–", "–", NatsServer.SkipLine]);
        }

        var staleRows = new List<IReadOnlyList<string>>();
        foreach (var (period, ticks, never) in staleness)
        {
            var sample = ticks.Select(t => t * 1e3 / Stopwatch.Frequency).Order().ToArray();
            double At(double p) => sample[Math.Min(sample.Length - 1, (int)Math.Ceiling(p * sample.Length) - 1)];
            var bound = 2 * period + roundTripMs;
            staleRows.Add([
                string.Create(CultureInfo.InvariantCulture, $"{period} ms"),
                Cell(sample.Length), Milli(At(0.5)), Milli(At(0.99)), Milli(sample[^1]), Milli(bound), Cell(never),
                At(0.99) <= bound ? "met" : "not met",
            ]);
            figures.Add(new LabFigure(Three, ContenderFamily.Ours, string.Create(CultureInfo.InvariantCulture, $"staleness, period {period} ms"), "p99 ms", [At(0.99)]));
            goals.Add(GoalRow(string.Create(CultureInfo.InvariantCulture, $"staleness bound ÷ p99, period {period} ms"), bound / At(0.99), 1));
        }

        return new LabOutcome(
        [
            new LabTable(
                "Identities across processes: throughput and latency",
                ["contender", "k identities/s", "k/s, least busy replica", "k/s, busiest replica", "p50 µs, paced", "p99 µs, paced", "p99.9 µs, paced", "failed calls"],
                speedRows,
                ["k identities/s", "k/s, least busy replica", "k/s, busiest replica", "p50 µs, paced", "p99 µs, paced", "p99.9 µs, paced"],
                string.Create(CultureInfo.InvariantCulture, $"8 clients × 8 callers in one client process; closed loop {seconds:0.#} s; paced: open loop at {pacedRate:N0} identities/s, each call timed from when it was due. Every identity checked: no duplicates, each caller's increasing.")),
            new LabTable(
                "Staleness: from an identity handed out until every replica's counter is past it (3 replicas)",
                ["period", "hand-outs sampled", "p50 ms", "p99 ms", "max ms", "bound ms (2 periods + round trip)", "never passed", "verdict"],
                staleRows,
                ["p50 ms", "p99 ms", "max ms", "bound ms (2 periods + round trip)"],
                string.Create(CultureInfo.InvariantCulture, $"Open loop at 5,000 identities/s, then quiet for three periods; the round trip is the 3 replicas' p50 at the paced rate, {roundTripMs:0.00} ms this launch. Hand-outs sampled every 100 µs per replica.")),
            new LabTable("Identities across processes: the issue's goals", ["goal", "ratio", "asks", "verdict"], goals, ["ratio"], "With several launches, the ratio is the median launch [lowest, highest], and the verdicts are each launch's."),
        ], [], figures);
    }

    private static List<string> GoalRow(string name, double ratio, double threshold) =>
        [name, ratio.ToString("F2", CultureInfo.InvariantCulture), string.Create(CultureInfo.InvariantCulture, $"≥ {threshold:0.##}"), ratio >= threshold ? "met" : "not met"];

    private static string Number(double value) => value.ToString(CultureInfo.InvariantCulture);

    internal static string Cell(double value) => value.ToString("N0", CultureInfo.InvariantCulture);

    private static string Milli(double value) => value.ToString("F1", CultureInfo.InvariantCulture);

    /// <summary>A contender: its row's name, its family, the load's kind, and how to start its servers.</summary>
    private sealed record Contender(string Name, ContenderFamily Family, string Kind, Func<Servers> Start);

    /// <summary>Running servers: where the load goes, and how to stop them.</summary>
    internal sealed class Servers(IReadOnlyList<string> targets, Action stop) : IDisposable
    {
        public IReadOnlyList<string> Targets => targets;

        public void Dispose() => stop();
    }

    /// <summary>Replica processes of one cluster, and the folder their data and records are in.</summary>
    internal sealed class ReplicaCluster(string folder, string[] addresses, List<ReplicaProcess> processes) : IDisposable
    {
        public string Folder => folder;

        public string[] Addresses => addresses;

        public IReadOnlyList<ReplicaProcess> Processes => processes;

        public Servers AsServers() => new(addresses, Dispose);

        public void Dispose() => processes.ForEach(p => p.Dispose());
    }
}
