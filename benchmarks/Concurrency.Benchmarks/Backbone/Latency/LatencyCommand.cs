using System.CommandLine;
using System.Globalization;
using Concurrency.Benchmarks.Actors;
using Concurrency.Benchmarks.CrossProcess;
using Concurrency.Benchmarks.HandOff;
using Concurrency.Messaging.Grpc;

namespace Concurrency.Benchmarks.Backbone.Latency;

/// <summary>
/// <c>-- latency [--seconds N] [--idle N] [--launches N] [--contenders LIST] [--quick] [--out DIR]</c>: per-message latency
/// under a fixed offered load. Each hand-off path (the peers and ours, not the ceilings), each actor system told by one
/// sender and playing request/reply, and our gRPC client in its async and in-order modes (requests to an echo server in
/// this process, over loopback), is offered messages open loop on a fixed schedule: 10%, 50% and 90% of its own
/// maximum (measured first, in the same shape) and fixed absolute rates; each message is timed from when it was due
/// (<see cref="Schedule"/>) to when it was handled (for gRPC, to when its reply reached the caller), into an HdrHistogram
/// per consumer, and every run is verified. Then idle-to-first-message: each pipe (under each runner), operator, actor and
/// gRPC client idle for a second, then handed one message.
/// Each launch is a fresh process; the tables give the median launch [lowest, highest]. Writes LATENCY-&lt;cores&gt;.md,
/// its result set (LATENCY-&lt;cores&gt;.json) and a percentile-distribution chart per scenario.
/// </summary>
public static class LatencyCommand
{
    public const string HandOffScenario = "latency hand-off";
    public const string ToldScenario = "latency actor told";
    public const string RequestReplyScenario = "latency actor request-reply";
    public const string GrpcScenario = "latency gRPC request-reply";
    public const string IdleScenario = "latency idle";

    private static readonly TimeSpan LaunchLimit = TimeSpan.FromMinutes(40);

    /// <summary>The hand-off paths it measures: every headline path but the ceilings, in the registry's order.</summary>
    internal static IEnumerable<Contender<HandOffBuild>> Paths
        => HandOffContenders.Registry.All.Where(c => c.Build.Path is not null && c.Family != ContenderFamily.Ceiling);

    /// <summary>
    /// The gRPC clients it measures: our client in the registry's async and in-order modes. Sync mode is left out: one
    /// message at a time, it is the lab's slowest mode by far (tens of times below async), so its maximum run at the plan's
    /// message count would take tens of seconds, several times per launch, for the mode our users pick least.
    /// </summary>
    internal static IEnumerable<(Contender<GrpcBuild> Contender, PeerMode Mode)> GrpcClients
        => GrpcContenders.Pumps.Where(p => p.Mode != PeerMode.Sync).Select(p => (GrpcContenders.Registry[p.Name], p.Mode));

    public static Command Create()
    {
        var seconds = CommonOptions.Seconds("--seconds", 2, "how long each paced run offers its rate, at most 2,097,152 messages (0.25 with --quick)");
        var idle = CommonOptions.Seconds("--idle", 1, "how long a consumer sits idle before it is handed one message (0.2 with --quick)");
        var launches = CommonOptions.Launches(3, LabOptions.MaxLaunches, "fresh processes that each measure everything; the tables give the median launch with the lowest and highest (1 with --quick)");
        var contenders = new Option<string[]>("--contenders")
        {
            HelpName = "NAME",
            Description = "only these contenders, by name, each a word of its own (quote one with spaces: 'Ring, pool runner'): hand-off paths, actor systems, gRPC clients, idle pipes; default all",
            AllowMultipleArgumentsPerToken = true,
        };
        var outDirectory = CommonOptions.Out("where LATENCY-<cores>.md, its .json and charts go (default: a new folder results/runs/latency/yyyy-MM-dd-HHmmss; the published ones are --out results)");
        var quick = CommonOptions.Quick("a smoke test: short runs, one run at the maximum, a short warm-up, one launch, one idle wake; not for publishing");
        var result = CommonOptions.Result();
        var command = new Command("latency", "Per-message latency under a fixed offered load, open loop and corrected for coordinated omission (each message timed from when it was due): every hand-off path, actors told and in request/reply, our gRPC client to an in-process echo server, at 10%, 50% and 90% of each one's own maximum and at 1,000 to 1,000,000 msg/s; p50 to p99.99 and max from HdrHistogram; then idle-to-first-message per runner and client. Prefix taskset -c 0 for one core. Writes LATENCY-<cores>.md, .json and charts.")
        {
            seconds, idle, launches, contenders, outDirectory, quick, result,
        };
        command.SetAction(parse =>
        {
            var isQuick = parse.GetValue(quick);
            var settings = new LatencySettings(
                CommonOptions.QuickOr(parse, seconds, isQuick, LatencyPlan.Quick.Seconds),
                CommonOptions.QuickOr(parse, idle, isQuick, 0.2),
                CommonOptions.QuickOr(parse, launches, isQuick, 1),
                isQuick,
                Selection(parse.GetValue(contenders)));
            return Experiment.Run(
                parse,
                result,
                outDirectory,
                () => MeasureAll(settings, parse.InvocationConfiguration.Output),
                experiment =>
                {
                    LatencyReport.Write(experiment.Launches<LatencyLaunch>(settings.Launches, LaunchLimit), settings, experiment);
                    return 0;
                },
                launches);
        });
        return command;
    }

    /// <summary>In a launch: the clock's cost, every selected target through the plan, then the idle wakes.</summary>
    private static LatencyLaunch MeasureAll(LatencySettings settings, TextWriter output)
    {
        var plan = settings.Quick ? LatencyPlan.Quick with { Seconds = settings.Seconds } : LatencyPlan.Full with { Seconds = settings.Seconds };
        var wakes = settings.Quick ? 1 : 3;
        var idle = TimeSpan.FromSeconds(settings.IdleSeconds);
        var timestamp = TimestampCost.Measure();
        var paths = Paths.Where(c => settings.Includes(c.Name)).ToList();
        var actors = ActorContenders.Registry.All.Where(c => settings.Includes(c.Name)).ToList();
        var idlers = HandOffContenders.Idle.Where(c => settings.Includes(c.Name)).ToList();
        var clients = GrpcClients.Where(c => settings.Includes(c.Contender.Name)).ToList();
        var steps = paths.Count + (2 * actors.Count) - actors.Count(c => c.Build.Bounded) + (2 * clients.Count) + idlers.Count + actors.Count;
        var done = 0;
        void Progress(string step) => BenchmarkProcess.ReportProgress(output, (double)done / Math.Max(steps, 1), step);
        BenchmarkProcess.ReportProgress(output, 0, string.Create(CultureInfo.InvariantCulture, $"a timestamp costs {timestamp:0.0} ns"));

        var loaded = new List<ScenarioLatency>();
        foreach (var contender in paths)
        {
            using var target = new PacedPath(contender.Build.Path!(), $"Latency {contender.Name}");
            loaded.Add(plan.Measure(HandOffScenario, contender.Name, contender.Family, target, Progress));
            done++;
        }

        foreach (var (game, scenario) in new[] { (PacedActorGame.Told, ToldScenario), (PacedActorGame.RequestReply, RequestReplyScenario) })
        {
            // A bounded mailbox refuses a reply told into it from inside a turn when it is full, by design: an open-loop
            // burst would lose messages there, so request/reply leaves those contenders out (the report says so).
            foreach (var contender in actors.Where(c => game == PacedActorGame.Told || !c.Build.Bounded))
            {
                using var target = new PacedActors(contender.Build.Create(), game, $"Latency {contender.Name}, {game}");
                loaded.Add(plan.Measure(scenario, contender.Name, contender.Family, target, Progress));
                done++;
            }
        }

        foreach (var (contender, mode) in clients)
        {
            using var target = PacedGrpc.Start(mode, $"Latency {contender.Name}");
            loaded.Add(plan.Measure(GrpcScenario, contender.Name, contender.Family, target, Progress));
            done++;
        }

        var woken = new List<IdleLatency>();
        foreach (var contender in idlers)
        {
            woken.Add(Woken(IdleWake.HandOff(contender, wakes, idle)));
        }

        foreach (var contender in actors)
        {
            woken.Add(Woken(IdleWake.Actor(contender, wakes, idle)));
        }

        foreach (var (contender, mode) in clients)
        {
            woken.Add(Woken(IdleWake.Grpc(contender, mode, wakes, idle)));
        }

        return new LatencyLaunch(timestamp, loaded, woken);

        IdleLatency Woken(IdleLatency wake)
        {
            done++;
            Progress(string.Create(CultureInfo.InvariantCulture, $"idle {wake.Contender}: {string.Join(", ", wake.Microseconds.Select(LatencyDistribution.Format))} µs"));
            return wake;
        }
    }

    /// <summary>The names given, or null for all.</summary>
    /// <exception cref="UsageException">A name no game has.</exception>
    private static string[]? Selection(string[]? names)
    {
        if (names is null || names.Length == 0)
        {
            return null;
        }

        var known = Paths.Select(c => c.Name)
            .Concat(ActorContenders.Registry.Names)
            .Concat(GrpcClients.Select(c => c.Contender.Name))
            .Concat(HandOffContenders.Idle.Select(c => c.Name))
            .ToHashSet(StringComparer.Ordinal);

        foreach (var name in names)
        {
            if (!known.Contains(name))
            {
                throw new UsageException($"latency: no contender '{name}'; it measures: {string.Join(", ", known.Order(StringComparer.Ordinal))}.");
            }
        }

        return names;
    }
}

/// <summary>What a latency run measures: seconds per paced run, seconds idle, launches, whether quick, and which contenders.</summary>
/// <param name="Contenders">The contenders' names, or null for all.</param>
internal sealed record LatencySettings(double Seconds, double IdleSeconds, int Launches, bool Quick, IReadOnlyList<string>? Contenders)
{
    public bool Includes(string name) => Contenders is null || Contenders.Contains(name);
}
