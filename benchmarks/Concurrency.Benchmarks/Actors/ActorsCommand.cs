using System.CommandLine;
using System.Diagnostics;
using System.Globalization;

namespace Concurrency.Benchmarks.Actors;

/// <summary>
/// <c>-- actors [--launches N] [--runs N] [--steady-seconds S] [--quick] [--out DIR]</c>: the actor games measured as a
/// user's program plays them, beside the BenchmarkDotNet suite's steady state. Each launch starts a fresh process per
/// contender (ours on each mailbox, Akka.NET, Proto.Actor), so each one's cold phase is its own process's first work:
/// five of the contenders are ours and share the runtime's code, and in one process the first of them would tier that
/// code up for the others, while each peer is alone in its library. Each run builds a fresh actor system, times one game
/// with a Stopwatch and checks every delivery. Cold: one warm-up run, then the median of --runs, in a process that has
/// not played the game yet. Steady: after the process has played the game (fresh systems, one after another) for
/// --steady-seconds, the median of --runs. The contenders' order turns by one each launch. The processes run with the
/// runtime's defaults a user's program has (concurrent workstation GC), not this program's non-concurrent setting.
/// Prefix <c>taskset -c 0</c> for one core. Writes ACTORS-&lt;cores&gt;.md and its results as JSON beside it.
/// </summary>
public static class ActorsCommand
{
    /// <summary>The scenario the measurements are filed under.</summary>
    public const string Scenario = "actors";

    private static readonly TimeSpan LaunchLimit = TimeSpan.FromMinutes(60);

    // The goals of the actors issue: our default mailbox against the better peer, per game and phase.
    private const string Ours = "BatchDrainMailbox";
    private static readonly string[] BetterPeer = ["AkkaNet", "ProtoActor"];

    public static Command Create()
    {
        var launches = CommonOptions.Launches(5, LabOptions.MaxLaunches, "fresh processes that each play every game; the table gives the median launch with the lowest and highest (1 with --quick)");
        var runs = CommonOptions.WholeNumber("--runs", "N", 3, 1, 100, "measured runs per game, contender and phase, each on a fresh system; a launch's figure is their median (1 with --quick)");
        var steady = CommonOptions.Seconds("--steady-seconds", 60, "how long a process plays a game before its steady runs (2 with --quick)");
        var quick = CommonOptions.Quick("a smoke test: games a twentieth the size, one run, one launch, a short steady phase; not for publishing");
        var outDirectory = CommonOptions.Out("where ACTORS-<cores>.md goes (default: a new folder results/runs/actors/yyyy-MM-dd-HHmmss)");
        var only = new Option<string?>("--contender") { Hidden = true }; // a child's one contender
        var result = CommonOptions.Result();
        var command = new Command("actors", "The actor games as a user's program plays them: a fresh process per launch, a fresh system per run, a Stopwatch, every delivery checked; cold (the first runs of a game in the process) and steady (after --steady-seconds of the game) apart; ours on each mailbox, Akka.NET and Proto.Actor. Prefix taskset -c 0 for one core. Writes ACTORS-<cores>.md.")
        {
            launches, runs, steady, quick, outDirectory, only, result,
        };
        command.SetAction(parse =>
        {
            var isQuick = parse.GetValue(quick);
            var settings = new Settings(
                CommonOptions.QuickOr(parse, launches, isQuick, 1),
                CommonOptions.QuickOr(parse, runs, isQuick, 1),
                TimeSpan.FromSeconds(CommonOptions.QuickOr(parse, steady, isQuick, 2)),
                isQuick);
            return Experiment.Run(
                parse,
                result,
                outDirectory,
                () => Play(settings, parse.GetValue(only) ?? throw new UsageException("actors: a child plays one --contender."), parse.InvocationConfiguration.Output),
                experiment => Run(settings, experiment, c => experiment.ChildArguments.With(only, c)),
                launches);
        });
        return command;
    }

    /// <summary>In the parent: the launches, each a child process per contender, then ACTORS-&lt;cores&gt;.md and its JSON.</summary>
    private static int Run(Settings settings, Experiment experiment, Func<string, ChildArguments> child)
    {
        var cores = experiment.Cores;
        var contenders = ActorContenders.Registry.All;
        var launches = experiment.Launches<List<ActorSample>>(settings.Launches, LaunchLimit, launch => Experiment.Rotation(contenders, launch)
            .Select(c => new Experiment.Launch(c.Name, child(c.Name), Experiment.UserDefaults)))
            .Select(launch => launch.SelectMany(samples => samples).ToList())
            .ToList();
        var games = launches[0].Select(s => s.Game).Distinct().ToList();
        var measurements = new List<Measurement>();
        var text = experiment.Header(
            "Actors as a user's program plays them",
            string.Create(CultureInfo.InvariantCulture, $"Each launch starts a fresh process per contender (so each one's cold phase is its process's first work, and ours do not warm each other's shared code), with the runtime's default garbage collector (workstation, concurrent), as a user's program has; each run builds a fresh actor system, sets up the game's actors (untimed), times one run with a Stopwatch and checks every delivery (count and checksum), then shuts the system down. **Cold**: one warm-up run, then the median of {settings.Runs} runs, before the process has played the game otherwise. **Steady**: after the process has played the game for {settings.Steady.TotalSeconds:0.#} s, the median of {settings.Runs} runs. Every contender at its defaults (ours: throughput 300; Akka.NET and Proto.Actor their default dispatchers). Ping-pong: one pair per core. Cells: msg/s (hops/s for the rings), the median of {settings.Launches} launches [lowest, highest launch]; the launches' spread is highest ÷ lowest. Goals: {Ours} at least 1.0× the better of Akka.NET and Proto.Actor steady, at least 0.83× cold, taken within each launch; our launches within 1.5× of each other unless the peers' differ as much."),
            settings.Quick ? "games a twentieth the size, one run, one launch" : null);
        foreach (var phase in (Phase[])[Phase.Cold, Phase.Steady])
        {
            text.AppendLine(CultureInfo.InvariantCulture, $"## {phase}")
                .AppendLine()
                .AppendLine(CultureInfo.InvariantCulture, $"| game | {string.Join(" | ", contenders.Select(c => c.Name))} | {Ours} ÷ better peer | verdict | spread: ours / peers |")
                .AppendLine(CultureInfo.InvariantCulture, $"|---|{string.Concat(contenders.Select(_ => "---:|"))}---:|---|---:|");
            foreach (var game in games)
            {
                double LaunchRate(List<ActorSample> launch, string contender) => launch.Single(s => s.Game == game && s.Contender == contender && s.Phase == phase).Median;
                var cells = new List<string>();
                foreach (var contender in contenders)
                {
                    var measurement = Measurement.Of(Scenario, contender.Name, contender.Family, game, phase, cores, Measurement.MessagesPerSecond, [.. launches.Select(l => LaunchRate(l, contender.Name))]);
                    measurements.Add(measurement);
                    cells.Add(RateCell(measurement));
                }

                var goal = new Goal($"{Ours} ÷ better peer, {game}", [Ours], BetterPeer, phase == Phase.Steady ? 1.0 : 0.83) { Phase = phase, Shape = game, SpreadLimit = 1.5 };
                var verdict = goal.Judge([.. launches.Select(l => (IReadOnlyList<double>)[goal.RatioOf(name => LaunchRate(l, name))])]);
                var spread = string.Join(" / ", new[] { Ours, BetterPeer[0], BetterPeer[1] }.Select(name => Spread(launches.Select(l => LaunchRate(l, name)))));
                text.AppendLine(CultureInfo.InvariantCulture, $"| {game} | {string.Join(" | ", cells)} | {verdict.Ratio} | {verdict.Verdict} | {spread} |");
            }

            text.AppendLine();
        }

        experiment.Write(string.Create(CultureInfo.InvariantCulture, $"ACTORS-{cores}.md"), text, measurements);
        return 0;
    }

    /// <summary>In a contender's own process in a launch: every game cold, then every game steady.</summary>
    private static List<ActorSample> Play(Settings settings, string contenderName, TextWriter output)
    {
        var contenders = new[] { ActorContenders.Registry[contenderName] };
        var games = ActorGame.All(Environment.ProcessorCount, settings.Quick);
        var samples = new List<ActorSample>();
        var steps = 2.0 * games.Count * contenders.Length;
        foreach (var phase in (Phase[])[Phase.Cold, Phase.Steady])
        {
            foreach (var game in games)
            {
                foreach (var contender in contenders)
                {
                    if (phase == Phase.Cold)
                    {
                        PlayOnce(contender, game); // the warm-up run
                    }
                    else
                    {
                        var warm = Stopwatch.StartNew();
                        do
                        {
                            PlayOnce(contender, game);
                        }
                        while (warm.Elapsed < settings.Steady);
                    }

                    var rates = Enumerable.Range(0, settings.Runs).Select(_ => PlayOnce(contender, game)).ToArray();
                    var sample = new ActorSample(game.Name, contender.Name, phase, rates);
                    samples.Add(sample);
                    BenchmarkProcess.ReportProgress(output, samples.Count / steps, string.Create(CultureInfo.InvariantCulture, $"{phase}, {game.Name}, {contender.Name}: {sample.Median / 1e6:0.00} M msg/s"));
                }
            }
        }

        return samples;
    }

    /// <summary>One run on a fresh system: set up (untimed), play (timed), verify, shut down. Returns msg/s.</summary>
    private static double PlayOnce(Contender<ActorBuild> contender, ActorGame game)
    {
        using var system = contender.Build.Create();
        game.SetUp(system);
        var watch = Stopwatch.StartNew();
        var totals = game.Run(system);
        watch.Stop();
        if (totals != game.Expected)
        {
            throw new InvalidOperationException($"{contender.Name}, {game.Name}: delivered {totals.Delivered} with checksum {totals.Checksum}; expected {game.Expected.Delivered} and {game.Expected.Checksum}.");
        }

        return game.Messages / watch.Elapsed.TotalSeconds;
    }

    private static string RateCell(Measurement m)
        => string.Create(CultureInfo.InvariantCulture, $"{m.Median / 1e6:0.00} M [{m.Low / 1e6:0.00}–{m.High / 1e6:0.00}]");

    private static string Spread(IEnumerable<double> launches)
    {
        var values = launches.ToList();
        return string.Create(CultureInfo.InvariantCulture, $"{values.Max() / values.Min():0.0}×");
    }

    /// <summary>Launches, measured runs, the steady phase's warm time, and whether it is a quick smoke run.</summary>
    private sealed record Settings(int Launches, int Runs, TimeSpan Steady, bool Quick);
}

/// <summary>One game, contender and phase in one launch: each measured run's msg/s.</summary>
public sealed record ActorSample(string Game, string Contender, Phase Phase, IReadOnlyList<double> Rates)
{
    /// <summary>Gets the runs' median.</summary>
    public double Median => LabSample.Of(Rates).Median;
}
