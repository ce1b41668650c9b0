using System.Diagnostics;
using System.Globalization;
using Concurrency.Messaging.Grpc;

namespace Concurrency.Benchmarks.CrossProcess;

/// <summary>
/// <c>lab grpc</c>: our gRPC messenger pump in its three modes across buffer sizes, payloads and sender counts, beside the
/// plain generated client (naive and hand-batched) and Proto.Remote, all against a peer in another process.
/// </summary>
/// <param name="findNatsServer">Finds the <c>nats-server</c> executable, or gives null where there is none (the NATS rows
/// are then skipped with one line saying so); default <see cref="NatsServer.Find"/>.</param>
internal sealed class GrpcExperiment(Func<string?>? findNatsServer = null) : ILabExperiment
{
    private const int Payload = 64;
    private const int ManySenders = 5000;

    // The sender count of the second async ÷ raw batched ratio: where 5,000 tasks' own resumption weighs less.
    private const int FewerSenders = 1000;
    private const int DefaultBuffer = GrpcContenders.Buffer;

    // The registry's contenders this experiment names.
    private const string Naive = "generated client, a message per write";
    private const string Raw256 = "generated client, batches of 256";
    private const string ProtoRequest = "Proto.Remote RequestAsync";
    private const string ProtoTell = "Proto.Remote Tell";
    private const string PlainEcho256 = GrpcContenders.PlainEcho256;
    private const string NatsRequest = GrpcContenders.NatsRequest;

    // The end-to-end goal: our async pump at least 0.8 of the plain grpc-dotnet echo, head to head.
    private const double EndToEndGoal = 0.8;

    // At least 8 rounds: twice through the balanced design of four contenders, once through that of five (10 rounds);
    // a quick run goes once through.
    private const int HeadToHeadRounds = 8;

    // The head-to-head contenders' places in their list, and so in the rounds' rates; the fewer-senders pump and the
    // plain echo follow where they run.
    private const int PumpContender = 0;
    private const int RawContender = 1;
    private const int NaiveContender = 2;

    // Each row's warm-up goes on while a run is this much faster than the one before, up to this many runs.
    private const double WarmUpRise = 1.1;
    private const int MaxWarmUpRuns = 10;

    // What the server CPU figures are, for the tables' notes.
    private const string ServerCpuNote = "Server CPU ns/msg is the CPU time (user and system, all threads, Linux's 10 ms ticks) the peer process used from just before a run's client was built to just after it finished, divided by the run's messages: "
        + "the server's whole cost per message (gRPC, Kestrel, HTTP/2, its garbage collections, and for ours the handler dispatch, reply assembly and session bookkeeping), connection set-up included.";
    private static readonly TimeSpan RunLength = TimeSpan.FromMilliseconds(600);

    // Each row's warm-up (not in a quick run): sized runs for at least this long (and on while they speed up, above).
    private static readonly TimeSpan WarmUpTime = TimeSpan.FromSeconds(2);
    private static readonly int[] Buffers = [1, 16, 256, 4096];
    private static readonly int[] Payloads = [16, 256, 4096];
    private static readonly int[] SenderCounts = [1, 10, 100, 1000, 5000];
    private static readonly PeerMode[] Modes = [PeerMode.Sync, PeerMode.Async, PeerMode.InOrder];

    // NATS request/reply at the issue's sender counts (a quick run: 1 and its own sender count).
    private static readonly int[] NatsSenderCounts = [1, FewerSenders, ManySenders];

    public string Name => "grpc";

    public string Title => "gRPC streaming peers: the messenger pump against the plain client and Proto.Remote";

    public string Description => "msg/s and round-trip latency of our gRPC pump (sync, async, in-order) against naive, hand-batched and Proto.Remote peers";

    public bool PerCoreCount => false;

    public string Method => """
        The seed (000, "Streaming Remote Throughput") sends 5000 messages, each from its own goroutine, through one messenger
        routine that owns the gRPC stream, in sync mode (wait for each reply before the next send), async mode (a listener
        routine reads replies) and in order; it finds async far ahead and the buffer size of little effect.

        Here the peer is the benchmark program started again as `serve` (our `PeerServer` echoing, and a Proto.Remote echo
        actor), in a process of its own on loopback, or on another machine with `lab grpc --server URL --proto-remote HOST:PORT`
        (`--in-process` hosts both in the lab's own process: a smoke option, not for publishing).
        Our client: `PeerClient` with the mode and buffer size shown, N sender tasks, each sending its share one message at a
        time and awaiting the reply; msg/s runs from the first send to the last reply, latency is each send's round trip
        (HdrHistogram). Baselines in the same run, against the same server: **naive**, the plain generated client awaiting
        `WriteAsync` for every message while a reader counts replies; **raw batched**, the plain client writing hand-made
        batches of 16 or 256 envelopes (the ceiling for what our pump adds: sequence numbers, acknowledgements, per-caller
        tasks). **Plain echo**, the yardstick: the plain generated client of a plain grpc-dotnet service (in the same peer
        process, on Kestrel over HTTP/2 as ours) that writes each batch of 256 envelopes back whole; nothing of ours on
        either side. **Proto.Remote** 1.8.0 moves the same messages to its echo actor: `RequestAsync` from N concurrent
        senders (the same shape as ours), and `Tell` with N in flight (its batched best case). **NATS**: NATS.Net 3.3.2
        against a `nats-server` the lab starts on a free loopback port (where one is installed: `apt-get install
        nats-server`), request/reply from 1, 1,000 and 5,000 concurrent senders, each awaiting its reply, to a subscriber
        that echoes the payload (on its own connection, in the lab's process).
        Each row: a warm-up that sizes the run to about 0.6 s and goes on for at least 2 s and while its rate still rises by
        a tenth a run (the JIT compiles a path not run before in tiers, over seconds), then 3 runs; the median [lowest,
        highest] is shown. The server CPU ns/msg: the peer process's CPU time over a run, divided by its messages.
        The goal ratios against the plain client are measured head to head, last: 10 rounds, each running our async pump
        (5,000 and 1,000 senders), raw batched 256, naive and the plain echo back to back, in a balanced order (each runs right after each
        other equally often), and the ratio is taken within each round, so that the machine's drift between rows minutes
        apart does not enter it. The lab's process collects its garbage before every timed run.
        Every run checks that each message came back exactly once (count and sum of the numbers they carry).
        """;

    public LabOutcome Run(LabContext context)
    {
        ArgumentNullException.ThrowIfNull(context);
        var inProcess = context.Peers.InProcess;
        using var process = context.Peers.Server is null && !inProcess ? PeerProcess.Start() : null;
        var natsServer = (findNatsServer ?? (() => NatsServer.Find()))();
        using var nats = natsServer is null ? null : NatsServer.Start(natsServer);
        var hosted = inProcess ? InProcessPeers.StartAsync(context.Cancellation).GetAwaiter().GetResult() : null;
        try
        {
            return Measure(context, process, hosted?.Peers ?? process?.Peers ?? context.Peers, nats?.Url);
        }
        finally
        {
            hosted?.DisposeAsync().AsTask().GetAwaiter().GetResult();
        }
    }

    private static LabOutcome Measure(LabContext context, PeerProcess? process, LabPeers peers, string? nats)
    {
        var server = peers.Server!;
        var runs = context.Quick ? 1 : 3;
        var senders = context.Quick ? 100 : ManySenders;
        var natsSenders = context.Quick ? [1, senders] : NatsSenderCounts;
        // The server's CPU is measurable only in a peer process of the lab's own (not on another machine, not in-process).
        Func<TimeSpan>? serverCpu = process is null ? null : () => process.CpuTime;
        var plan = new Plan(context, Modes.Length * Buffers.Length + Payloads.Length + SenderCounts.Length + natsSenders.Length + 8, serverCpu);
        var cancellation = context.Cancellation;

        var byMode = new Dictionary<(PeerMode, int), List<PeerRunResult>>();
        foreach (var mode in Modes)
        {
            foreach (var buffer in Buffers)
            {
                byMode[(mode, buffer)] = plan.Measure($"{mode} buffer {buffer}", runs, senders, count => PeerRuns.PumpAsync(server, mode, buffer, Payload, senders, count, cancellation));
            }
        }

        // The registry's other contenders, each at its own unit of work (a write of N envelopes, or N senders).
        var target = new GrpcTarget(server, peers.ProtoRemote, peers.PlainEcho, nats);
        List<PeerRunResult> Baseline(string name, int unit)
            => plan.Measure(name, runs, unit, count => GrpcContenders.Registry[name].Build(target, senders, Payload, count, cancellation));
        var naive = Baseline(Naive, 1);
        var raw16 = Baseline("generated client, batches of 16", 16);
        var raw256 = Baseline(Raw256, 256);
        List<PeerRunResult>? protoRequest = null, protoTell = null;
        if (peers.ProtoRemote is not null)
        {
            protoRequest = Baseline(ProtoRequest, senders);
            protoTell = Baseline(ProtoTell, senders);
        }

        var plainEcho = peers.PlainEcho is null ? null : Baseline(PlainEcho256, 256);
        var byNatsSenders = nats is null ? null : natsSenders.ToDictionary(
            s => s,
            s => plan.Measure($"NATS {s} senders", runs, s, count => GrpcContenders.Registry[NatsRequest].Build(target, s, Payload, count, cancellation), serverInPeer: false));

        var byPayload = Payloads.ToDictionary(p => p, p => plan.Measure($"async {p} B", runs, senders, count => PeerRuns.PumpAsync(server, PeerMode.Async, DefaultBuffer, p, senders, count, cancellation)));
        var bySenders = SenderCounts.Where(s => !context.Quick || s <= senders).ToDictionary(
            s => s,
            s => plan.Measure($"async {s} senders", runs, s, count => PeerRuns.PumpAsync(server, PeerMode.Async, DefaultBuffer, Payload, s, count, cancellation)));

        // The goal ratios against the plain client, head to head: each round runs every contender back to back. The list's
        // order is the one PumpContender, RawContender and NaiveContender name, then the fewer-senders pump and the plain
        // echo where they run.
        var fewerSenders = senders != FewerSenders && bySenders.TryGetValue(FewerSenders, out var fewerRuns) ? fewerRuns : null;
        var cpuRounds = new List<List<double>>();
        List<HeadToHead.Contender> contenders =
        [
            Contender(plan, $"async {senders:N0} senders", plan.Size(Rate(byMode[(PeerMode.Async, DefaultBuffer)]).Median, senders), count => PeerRuns.PumpAsync(server, PeerMode.Async, DefaultBuffer, Payload, senders, count, cancellation), cpuRounds),
            Contender(plan, "raw batched 256", plan.Size(Rate(raw256).Median, 256), count => GrpcContenders.Registry[Raw256].Build(target, senders, Payload, count, cancellation), cpuRounds),
            Contender(plan, "naive", plan.Size(Rate(naive).Median, 1), count => GrpcContenders.Registry[Naive].Build(target, senders, Payload, count, cancellation), cpuRounds),
        ];
        int? fewerSendersContender = null, plainEchoContender = null;
        if (fewerSenders is not null)
        {
            fewerSendersContender = contenders.Count;
            contenders.Add(Contender(plan, $"async {FewerSenders:N0} senders", plan.Size(Rate(fewerSenders).Median, FewerSenders), count => PeerRuns.PumpAsync(server, PeerMode.Async, DefaultBuffer, Payload, FewerSenders, count, cancellation), cpuRounds));
        }

        if (plainEcho is not null)
        {
            plainEchoContender = contenders.Count;
            contenders.Add(Contender(plan, "plain echo 256", plan.Size(Rate(plainEcho).Median, 256), count => GrpcContenders.Registry[PlainEcho256].Build(target, senders, Payload, count, cancellation), cpuRounds));
        }

        var rounds = plan.HeadToHead(contenders, context.Quick ? 1 : Math.Max(1, HeadToHeadRounds / HeadToHead.Design(contenders.Count).Length));

        // Only against a peer process of our own: the restart run kills one (not with remote or in-process peers).
        RestartResult? restart = null;
        if (process is not null)
        {
            context.Report(0.97, "restarts");
            restart = RestartRun.Run(context.Quick ? 1 : 3, context.Quick ? 100 : 1000, context.Quick ? 4_000 : 300_000, cancellation);
        }

        var async = Rate(byMode[(PeerMode.Async, DefaultBuffer)]);
        var inOrder = Rate(byMode[(PeerMode.InOrder, DefaultBuffer)]);
        List<LabTable> tables =
        [
            ModeTable(byMode, senders, peers.InProcess
                ? "Peers hosted in the lab's own process (--in-process, the smoke option): the server's work shares the client's process and thread pool. These numbers are not for publishing, and the restart run (which kills a peer process) was left out."
                : null),
            BaselineTable(byMode[(PeerMode.Async, DefaultBuffer)], naive, raw16, raw256, plainEcho, protoRequest, protoTell, byNatsSenders, senders, peers.InProcess, serverCpu is not null),
            RatioTable(async, inOrder, rounds, fewerSendersContender, plainEchoContender, protoRequest, protoTell, byNatsSenders, senders),
            HeadToHeadTable(contenders, rounds),
            SweepTable($"Payload sweep: async, buffer {DefaultBuffer}, {senders:N0} senders", "payload (B)", byPayload),
            SweepTable($"Sender sweep: async, buffer {DefaultBuffer}, {Payload} B", "senders", bySenders),
        ];
        if (serverCpu is not null)
        {
            tables.Add(ServerCpuTable(contenders, rounds, cpuRounds, plainEchoContender));
        }

        if (restart is { } r)
        {
            tables.Add(new LabTable(
                "The peer process killed and started again mid-stream (async, buffer 256, 64 B)",
                ["restarts survived", "messages", "lost", "reconnects", "resent", "msg/s through the crashes"],
                [[
                    r.Restarts.ToString(CultureInfo.InvariantCulture), r.Messages.ToString("N0", CultureInfo.InvariantCulture), r.Lost.ToString("N0", CultureInfo.InvariantCulture),
                    r.Reconnects.ToString("N0", CultureInfo.InvariantCulture), r.Resent.ToString("N0", CultureInfo.InvariantCulture), r.MessagesPerSecond.ToString("N0", CultureInfo.InvariantCulture),
                ]],
                ["messages", "lost", "reconnects", "resent", "msg/s through the crashes"],
                "Each restart kills the peer process (no graceful stop) once the next share of the messages was answered, and starts a new one on the same port. "
                + "A new process remembers no session, so a resent message may be handled twice by the server; every caller still gets exactly one reply (count and sum checked)."));
        }
        List<LabChart> charts =
        [
            new("grpc-buffer", $"msg/s by buffer size, {Payload} B, {senders:N0} senders", "buffer size (messages)", "msg/s",
                [.. Modes.Select(mode => new LabSeries(mode.ToString(), [.. Buffers.Select(b => (double)b)], [.. Buffers.Select(b => Rate(byMode[(mode, b)]).Median)]))],
                LogX: true, LogY: true),
            new("grpc-senders", $"msg/s by concurrent senders, async, buffer {DefaultBuffer}, {Payload} B", "senders", "msg/s",
                [new LabSeries("async", [.. bySenders.Keys.Select(s => (double)s)], [.. bySenders.Values.Select(r => Rate(r).Median)])],
                LogX: true, LogY: true),
        ];
        List<LabFigure> figures =
        [
            Figure("PeerClient, async", Senders(senders), byMode[(PeerMode.Async, DefaultBuffer)]),
            Figure("PeerClient, in order", Senders(senders), byMode[(PeerMode.InOrder, DefaultBuffer)]),
            Figure(Raw256, string.Empty, raw256),
            Figure(Naive, string.Empty, naive),
        ];
        if (protoRequest is not null && protoTell is not null)
        {
            figures.Add(Figure(ProtoRequest, Senders(senders), protoRequest));
            figures.Add(Figure(ProtoTell, Senders(senders), protoTell));
        }

        if (plainEcho is not null)
        {
            figures.Add(Figure(PlainEcho256, string.Empty, plainEcho));
        }

        foreach (var (natsSenderCount, natsRuns) in byNatsSenders ?? [])
        {
            figures.Add(Figure(NatsRequest, Senders(natsSenderCount), natsRuns));
        }

        if (serverCpu is not null)
        {
            // The server's CPU per message: the baseline rows, and each head-to-head contender over its rounds.
            figures.Add(CpuFigure("PeerClient, async", Senders(senders), [.. byMode[(PeerMode.Async, DefaultBuffer)].Select(r => r.ServerCpuNsPerMessage)]));
            figures.Add(CpuFigure(Raw256, string.Empty, [.. raw256.Select(r => r.ServerCpuNsPerMessage)]));
            figures.Add(CpuFigure(Naive, string.Empty, [.. naive.Select(r => r.ServerCpuNsPerMessage)]));
            if (plainEcho is not null)
            {
                figures.Add(CpuFigure(PlainEcho256, string.Empty, [.. plainEcho.Select(r => r.ServerCpuNsPerMessage)]));
            }

            figures.Add(CpuFigure("PeerClient, async", $"{Senders(senders)}, head to head", cpuRounds[PumpContender]));
            figures.Add(CpuFigure(Raw256, "head to head", cpuRounds[RawContender]));
            if (fewerSendersContender is { } fewerCpu)
            {
                figures.Add(CpuFigure("PeerClient, async", $"{Senders(FewerSenders)}, head to head", cpuRounds[fewerCpu]));
            }

            if (plainEchoContender is { } plainCpu)
            {
                figures.Add(CpuFigure(PlainEcho256, "head to head", cpuRounds[plainCpu]));
            }
        }

        return new LabOutcome(tables, charts, figures);
    }

    /// <summary>A row's runs as a figure for the decision table: msg/s of each run, with the row's payload and conditions.</summary>
    private static LabFigure Figure(string contender, string conditions, List<PeerRunResult> runs)
        => new(contender, GrpcContenders.Registry[contender].Family, string.Join(", ", [string.Create(CultureInfo.InvariantCulture, $"Payload={Payload}"), .. conditions.Length > 0 ? [conditions] : Array.Empty<string>()]), Measurement.MessagesPerSecond, [.. runs.Select(r => r.MessagesPerSecond)]);

    /// <summary>The server's CPU time per message in each run, as a figure (metric <see cref="Measurement.ServerCpuNanosecondsPerMessage"/>).</summary>
    private static LabFigure CpuFigure(string contender, string conditions, IReadOnlyList<double> values)
        => new(contender, GrpcContenders.Registry[contender].Family, string.Join(", ", [string.Create(CultureInfo.InvariantCulture, $"Payload={Payload}"), .. conditions.Length > 0 ? [conditions] : Array.Empty<string>()]), Measurement.ServerCpuNanosecondsPerMessage, values);

    private static string Senders(int senders) => string.Create(CultureInfo.InvariantCulture, $"Senders={senders}");

    /// <summary>
    /// A head-to-head contender that sends <paramref name="messages"/> per run and gives the run's rate; the server's CPU
    /// time per message of each round goes to a list of its own, added to <paramref name="serverCpu"/> (so in the
    /// contenders' order; NaN where it is not measured).
    /// </summary>
    private static HeadToHead.Contender Contender(Plan plan, string label, int messages, Func<int, Task<PeerRunResult>> run, List<List<double>> serverCpu)
    {
        var rounds = new List<double>();
        serverCpu.Add(rounds);
        return new(label, () =>
        {
            var result = plan.Timed(run, messages);
            rounds.Add(result.ServerCpuNsPerMessage);
            return result.MessagesPerSecond;
        });
    }

    private static LabSample Rate(List<PeerRunResult> results) => LabSample.Of([.. results.Select(r => r.MessagesPerSecond)]);

    private static string Latency(List<PeerRunResult> results, Func<PeerRunResult, double> percentile)
        => double.IsNaN(percentile(results[0])) ? "–" : LabSample.Of([.. results.Select(percentile)]).Format("N0");

    private static LabTable ModeTable(Dictionary<(PeerMode, int), List<PeerRunResult>> byMode, int senders, string? note) => new(
        $"Our pump by mode and buffer size: {Payload} B, {senders:N0} senders",
        ["mode", "buffer", "msg/s", "p50 µs", "p99 µs", "p99.9 µs"],
        [.. byMode.Select(entry => (IReadOnlyList<string>)
        [
            entry.Key.Item1.ToString(),
            entry.Key.Item2.ToString(CultureInfo.InvariantCulture),
            Rate(entry.Value).Format(),
            Latency(entry.Value, r => r.P50),
            Latency(entry.Value, r => r.P99),
            Latency(entry.Value, r => r.P999),
        ])],
        ["buffer", "msg/s", "p50 µs", "p99 µs", "p99.9 µs"],
        note);

    private static LabTable BaselineTable(List<PeerRunResult> async, List<PeerRunResult> naive, List<PeerRunResult> raw16, List<PeerRunResult> raw256, List<PeerRunResult>? plainEcho, List<PeerRunResult>? protoRequest, List<PeerRunResult>? protoTell, Dictionary<int, List<PeerRunResult>>? nats, int senders, bool inProcess, bool serverCpu)
    {
        List<IReadOnlyList<string>> rows =
        [
            [$"our pump, async, buffer {DefaultBuffer}, {senders:N0} senders", Rate(async).Format(), Allocated(async), ServerCpu(async)],
            ["naive: plain client, await WriteAsync per message", Rate(naive).Format(), Allocated(naive), ServerCpu(naive)],
            ["raw batched: plain client, 16 envelopes per write", Rate(raw16).Format(), Allocated(raw16), ServerCpu(raw16)],
            ["raw batched: plain client, 256 envelopes per write", Rate(raw256).Format(), Allocated(raw256), ServerCpu(raw256)],
        ];
        if (plainEcho is not null)
        {
            rows.Add(["plain echo: plain grpc-dotnet service, 256 envelopes per write", Rate(plainEcho).Format(), Allocated(plainEcho), ServerCpu(plainEcho)]);
        }

        if (protoRequest is not null && protoTell is not null)
        {
            rows.Add([$"Proto.Remote, RequestAsync from {senders:N0} senders", Rate(protoRequest).Format(), "–", ServerCpu(protoRequest)]);
            rows.Add([$"Proto.Remote, Tell, {senders:N0} in flight", Rate(protoTell).Format(), "–", ServerCpu(protoTell)]);
        }

        foreach (var (natsSenders, natsRuns) in nats ?? [])
        {
            rows.Add([$"NATS request/reply from {natsSenders:N0} sender{(natsSenders == 1 ? string.Empty : "s")}", Rate(natsRuns).Format(), Allocated(natsRuns), "–"]);
        }

        List<string> notes = [];
        if (plainEcho is null)
        {
            notes.Add("The plain echo was not measured: it runs in the lab's own peers only (not with --server).");
        }

        if (protoRequest is null)
        {
            notes.Add("Proto.Remote was not measured: no --proto-remote peer was given with --server.");
        }

        if (nats is null)
        {
            notes.Add(NatsServer.SkipLine);
        }
        else
        {
            notes.Add("NATS's allocated B/msg counts its echo subscriber too (it runs in the lab's process).");
        }

        notes.Add(inProcess
            ? "Allocated B/msg counts everything the lab's process allocated during a run, the in-process peers' work included."
            : "Allocated B/msg is what the client's process allocated from the first send to the last reply, per message (the harness's own payload buffers included: one per message for the plain client, one per sender for ours).");
        notes.Add(serverCpu
            ? ServerCpuNote + " NATS's server is a process of its own, not measured."
            : "Server CPU ns/msg is measured only against the lab's own peer process (not with --server or --in-process).");
        return new LabTable($"Baselines and peer in the same run, {Payload} B", ["path", "msg/s", "allocated B/msg", "server CPU ns/msg"], rows, ["msg/s", "allocated B/msg", "server CPU ns/msg"], string.Join(" ", notes));
    }

    // The ratio of two contenders' server CPU within each round, over the rounds where both took at least a clock tick
    // (a quick run's rounds may take none): median [lowest, highest], or "–".
    private static string CpuRatio(List<double> top, List<double> bottom)
    {
        double[] ratios = [.. top.Zip(bottom).Where(pair => pair.First > 0 && pair.Second > 0).Select(pair => pair.First / pair.Second)];
        if (ratios.Length == 0)
        {
            return "–";
        }

        var ratio = LabSample.Of(ratios);
        return string.Create(CultureInfo.InvariantCulture, $"{ratio.Median:0.00} [{ratio.Low:0.00}, {ratio.High:0.00}]");
    }

    private static string ServerCpu(List<PeerRunResult> results)
        => results.Any(r => double.IsNaN(r.ServerCpuNsPerMessage)) ? "–" : LabSample.Of([.. results.Select(r => r.ServerCpuNsPerMessage)]).Format();

    /// <summary>The server's CPU per message of each head-to-head contender over its rounds, and its ratio to the plain echo's within each round.</summary>
    private static LabTable ServerCpuTable(IReadOnlyList<HeadToHead.Contender> contenders, double[][] rounds, List<List<double>> cpuRounds, int? plainEchoContender) => new(
        "Server CPU per message, head to head (the same rounds)",
        ["contender", "msg/s (median round)", "server CPU ns/msg", "÷ plain echo's (within each round)"],
        [.. contenders.Select((contender, index) => (IReadOnlyList<string>)
        [
            contender.Label,
            LabSample.Of(rounds[index]).Median.ToString("N0", CultureInfo.InvariantCulture),
            LabSample.Of(cpuRounds[index]).Format(),
            plainEchoContender is { } plain ? CpuRatio(cpuRounds[index], cpuRounds[plain]) : "–",
        ])],
        ["msg/s (median round)", "server CPU ns/msg", "÷ plain echo's (within each round)"],
        ServerCpuNote + " Median round [lowest, highest]; the ratio is taken within each round, as the rates' are, over the rounds where both sides took a clock tick or more (a quick run's are too short to measure).");

    private static string Allocated(List<PeerRunResult> results) => LabSample.Of([.. results.Select(r => r.BytesPerMessage)]).Format();

    private static LabTable RatioTable(LabSample async, LabSample inOrder, double[][] rounds, int? fewerSendersContender, int? plainEchoContender, List<PeerRunResult>? protoRequest, List<PeerRunResult>? protoTell, Dictionary<int, List<PeerRunResult>>? nats, int senders)
    {
        List<IReadOnlyList<string>> rows =
        [
            Ratio(LabGoal("async ÷ naive (head to head)", 40), rounds[PumpContender], rounds[NaiveContender]),
            Ratio(LabGoal("async ÷ raw batched 256 (head to head)", 0.8), rounds[PumpContender], rounds[RawContender]),
        ];
        if (fewerSendersContender is { } fewer)
        {
            // The same ratio where the callers' own cost weighs less: fewer tasks in flight, each resumed as often.
            rows.Add(Ratio(LabGoal(string.Create(CultureInfo.InvariantCulture, $"async, {FewerSenders:N0} senders ÷ raw batched 256 (head to head)"), 0.8), rounds[fewer], rounds[RawContender]));
        }

        if (plainEchoContender is { } plain)
        {
            // The end-to-end goal: ours, client and server, against gRPC with nothing of ours on either side.
            rows.Add(Ratio(LabGoal(string.Create(CultureInfo.InvariantCulture, $"async, {senders:N0} senders ÷ plain grpc echo 256 (head to head)"), EndToEndGoal), rounds[PumpContender], rounds[plain]));
            if (fewerSendersContender is { } fewerThanMany)
            {
                rows.Add(Ratio(LabGoal(string.Create(CultureInfo.InvariantCulture, $"async, {FewerSenders:N0} senders ÷ plain grpc echo 256 (head to head)"), EndToEndGoal), rounds[fewerThanMany], rounds[plain]));
            }
        }

        rows.Add(Ratio(LabGoal("in-order ÷ async", 0.5), inOrder, async));
        if (protoRequest is not null && protoTell is not null)
        {
            rows.Add(Ratio(LabGoal("async ÷ Proto.Remote RequestAsync", 1), async, Rate(protoRequest)));
            rows.Add(Ratio(LabGoal("async ÷ Proto.Remote Tell", 1), async, Rate(protoTell)));
        }

        if (nats is not null && nats.TryGetValue(senders, out var natsRuns))
        {
            rows.Add(Ratio(LabGoal(string.Create(CultureInfo.InvariantCulture, $"async ÷ NATS request/reply, {senders:N0} senders"), 1), async, Rate(natsRuns)));
        }

        return new LabTable(
            $"Ratios against the issue's goals (buffer {DefaultBuffer}; async and in-order with {senders:N0} senders unless said)",
            ["ratio", "median [lowest, highest]", "goal", "verdict"],
            rows,
            ["median [lowest, highest]", "goal"],
            "A head-to-head ratio is taken within each round of the table below (the contenders run back to back) and shows the "
            + "median round [the lowest, the highest round]. The others divide the rows above: their range divides the lowest run of "
            + "one side by the highest of the other, and the other way round. "
            + "Each goal is judged on this launch: \"met (median)\" means the median reaches it, \"met, even the lowest\" that the range's low end does too.");
    }

    private static LabTable HeadToHeadTable(IReadOnlyList<HeadToHead.Contender> contenders, double[][] rounds)
    {
        string[] numbers = [.. Enumerable.Range(1, rounds[0].Length).Select(r => string.Create(CultureInfo.InvariantCulture, $"round {r}, msg/s")), "median"];
        return new(
            "Head to head: each round runs every contender once, back to back, in a balanced order",
            ["contender", .. numbers],
            [.. contenders.Select((contender, index) => (IReadOnlyList<string>)
            [
                contender.Label,
                .. rounds[index].Select(rate => rate.ToString("N0", CultureInfo.InvariantCulture)),
                LabSample.Of(rounds[index]).Median.ToString("N0", CultureInfo.InvariantCulture),
            ])],
            numbers);
    }

    /// <summary>A goal of this experiment, "OURS ÷ VERSUS": judged on one launch, its verdict that launch's (the lab lists each launch's).</summary>
    private static Goal LabGoal(string name, double threshold)
        => new(name, [name.Split(" ÷ ")[0]], [name.Split(" ÷ ")[^1]], threshold) { MinLaunches = 1 };

    /// <summary>A head-to-head goal's row: the ratio within each round of <paramref name="top"/>'s rates to <paramref name="bottom"/>'s.</summary>
    private static IReadOnlyList<string> Ratio(Goal goal, double[] top, double[] bottom) => Row(goal.Judge([HeadToHead.Ratios(top, bottom)]));

    /// <summary>A goal's row from two rows' runs: the medians' ratio, its range the extremes divided.</summary>
    private static IReadOnlyList<string> Ratio(Goal goal, LabSample top, LabSample bottom)
        => Row(goal.Judge(top.Median / bottom.Median, top.Low / bottom.High, top.High / bottom.Low, launches: 1));

    private static IReadOnlyList<string> Row(GoalVerdict verdict)
        => [verdict.Goal.Name, string.Create(CultureInfo.InvariantCulture, $"{verdict.Median:0.00} [{verdict.Lowest:0.00}, {verdict.Highest:0.00}]"), string.Create(CultureInfo.InvariantCulture, $"≥ {verdict.Goal.Threshold:0.##}"), verdict.Verdict];

    private static LabTable SweepTable(string title, string key, Dictionary<int, List<PeerRunResult>> results) => new(
        title,
        [key, "msg/s", "p50 µs", "p99 µs", "p99.9 µs"],
        [.. results.Select(entry => (IReadOnlyList<string>)
        [
            entry.Key.ToString("N0", CultureInfo.InvariantCulture),
            Rate(entry.Value).Format(),
            Latency(entry.Value, r => r.P50),
            Latency(entry.Value, r => r.P99),
            Latency(entry.Value, r => r.P999),
        ])],
        [key, "msg/s", "p50 µs", "p99 µs", "p99.9 µs"]);

    /// <summary>
    /// Runs each row: a warm-up that sizes the run, then the timed runs, with progress. Where the server runs in a peer
    /// process of the lab's own (<paramref name="serverCpu"/> reads its CPU time), each timed run also gives the server's
    /// CPU time per message.
    /// </summary>
    private sealed class Plan(LabContext context, int rows, Func<TimeSpan>? serverCpu)
    {
        private int _done;

        public List<PeerRunResult> Measure(string label, int runs, int unit, Func<int, Task<PeerRunResult>> run, bool serverInPeer = true)
        {
            context.Report((double)_done / rows, label);
            var warmUp = Round(context.Quick ? 1_000 : 20_000, unit);
            var rate = run(warmUp).GetAwaiter().GetResult().MessagesPerSecond;
            if (!context.Quick)
            {
                // A path whose code has not run yet (the plain echo's, on both sides) starts at the JIT's first tier and
                // takes seconds of runs to reach its last: it is warmed until its rate stops rising, so that no row is
                // measured colder than another (a 20,000-message warm-up left the plain echo at half its speed).
                var warming = Stopwatch.GetTimestamp();
                for (var i = 0; i < MaxWarmUpRuns; i++)
                {
                    var next = run(Size(rate, unit)).GetAwaiter().GetResult().MessagesPerSecond;
                    var rising = next > rate * WarmUpRise;
                    rate = next;
                    if (!rising && Stopwatch.GetElapsedTime(warming) >= WarmUpTime)
                    {
                        break;
                    }
                }
            }

            var count = Size(rate, unit);
            var results = new List<PeerRunResult>(runs);
            for (var i = 0; i < runs; i++)
            {
                Backbone.Lab.HeadToHead.CollectGarbage();
                results.Add(Timed(run, count, serverInPeer));
            }

            _done++;
            return results;
        }

        /// <summary>One run of <paramref name="count"/> messages, with the peer process's CPU time over it per message where it is the server.</summary>
        public PeerRunResult Timed(Func<int, Task<PeerRunResult>> run, int count, bool serverInPeer = true)
        {
            var cpu = serverInPeer ? serverCpu : null;
            var before = cpu?.Invoke() ?? TimeSpan.Zero;
            var result = run(count).GetAwaiter().GetResult();
            return cpu is null ? result : result with { ServerCpuNsPerMessage = (cpu() - before).TotalNanoseconds / count };
        }

        /// <summary>A run's message count for a path measured at <paramref name="rate"/>: about the lab's run length.</summary>
        public int Size(double rate, int unit)
            => context.Quick ? Round(2_000, unit) : Round((int)Math.Clamp(rate * RunLength.TotalSeconds, 10_000, 4_000_000), unit);

        public double[][] HeadToHead(IReadOnlyList<HeadToHead.Contender> contenders, int repeats)
        {
            var rates = Backbone.Lab.HeadToHead.Run(contenders, repeats, (round, rounds, label) => context.Report(
                (_done + ((double)round / rounds)) / rows,
                string.Create(CultureInfo.InvariantCulture, $"head to head, round {round + 1}/{rounds}: {label}")));
            _done++;
            return rates;
        }

        private static int Round(int count, int unit) => Math.Max(unit, count / unit * unit);
    }
}
