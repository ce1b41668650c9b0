using System.CommandLine;
using System.Diagnostics;
using System.Globalization;
using System.Runtime;
using Concurrency.Benchmarks.Backbone.Reporting;
using Concurrency.Benchmarks.HandOff.Paths;
using Concurrency.Benchmarks.HandOff.Shapes;
using Concurrency.Messaging.Linq;
using Concurrency.Messaging.Pipes;

namespace Concurrency.Benchmarks.HandOff;

/// <summary>
/// <c>-- loop [--messages N] [--runs N] [--launches N] [--quick] [--out DIR]</c> (or <c>-- loop --shapes [--phases LIST]
/// [--warm-seconds S] ...</c>, <see cref="LoopShapes"/>): the headline contenders measured the plain way,
/// outside BenchmarkDotNet, as a user would try them: one producer thread posts N messages (10,000,000 by default) in one
/// loop, the run ends when the consumer has handled the last one, every run is verified; warm-up runs until the runtime
/// has settled on its code, then the median of the runs. Each launch (3 by default) is a fresh process; the table gives
/// the median of the launches. Then the small rings (<c>Ring</c> and <c>ObserveOnRing</c> of capacity 16 and 64) the same
/// way, each beside its default capacity and, on one core, beside the ceiling that the core's thread hand-off puts on it
/// (<see cref="ThreadHandOff"/>). Last, the issue's speed goals head to head: the paths they compare, built side by side,
/// run back to back in rounds of a balanced order, each goal's ratio taken within each round (<see cref="HeadToHead"/>).
/// Run it under <c>taskset -c 0</c> for one core (the launches inherit the pinning). Writes LOOP-&lt;cores&gt;.md.
/// </summary>
public static class LoopCommand
{
    /// <summary>The scenario the loop's measurements are filed under.</summary>
    public const string Scenario = "loop";

    private static readonly Warmup FullWarmup = new(TimeSpan.FromSeconds(3), TimeSpan.FromSeconds(20));

    private static readonly Warmup QuickWarmup = new(TimeSpan.Zero, TimeSpan.FromSeconds(1));

    private static readonly TimeSpan LaunchLimit = TimeSpan.FromMinutes(30);

    // The small rings of the issue's capacity goal, measured beside the headline paths' default capacity.
    private static readonly int[] SmallCapacities = [16, 64];

    // The speed goals, judged head to head: the paths they name run back to back in rounds, each ratio taken within each
    // round. RawRing's ratio to Rx is a yardstick: what 3× Rx asks of any hand-off.
    private static readonly Goal[] HeadToHeadGoals =
    [
        new("ObserveOnRing ÷ Rx ObserveOn (TaskPool)", ["ObserveOnRing"], ["RxObserveOnTaskPool"], 3),
        new("RawRing (the ceiling; not a goal: what 3× Rx asks of any hand-off) ÷ Rx ObserveOn (TaskPool)", ["RawRing"], ["RxObserveOnTaskPool"], 3) { IsYardstick = true },
        new("best pipe (the faster of Ring and BatchDrainQueue that round) ÷ Dataflow ActionBlock", ["Ring", "BatchDrainQueue"], ["DataflowActionBlock"], 1.2),
        new("Ring ÷ Dataflow ActionBlock", ["Ring"], ["DataflowActionBlock"], 1.2),
        new("BatchDrainQueue ÷ Dataflow ActionBlock", ["BatchDrainQueue"], ["DataflowActionBlock"], 1.2),
        new("BatchDrainQueue ÷ Channel, unbounded", ["BatchDrainQueue"], ["ChannelUnbounded"], 1.5),
    ];

    // The contenders the goals name, in the registry's order: those that park when idle are built side by side, those
    // that never park afresh for each run.
    private static readonly Contender<HandOffBuild>[] HeadToHeadContenders =
        [.. HandOffContenders.Registry.All.Where(c => HeadToHeadGoals.Any(g => g.Contenders.Contains(c.Name)))];

    // Rounds of the head-to-head: its design for these 6 paths and RawRing has 14 rounds, run this many times per launch.
    private const int HeadToHeadRepeats = 1;

    // A quick run (--quick): a smoke test of the whole command, not a measurement.
    private const int QuickMessages = 100_000;

    public static Command Create()
    {
        var messages = CommonOptions.WholeNumber("--messages", "N", 10_000_000, 1, int.MaxValue, $"messages per run ({QuickMessages:N0} with --quick)");
        var runs = CommonOptions.WholeNumber("--runs", "N", 5, 1, 1_000, "measured runs per path after the warm-up; the table gives their median (1 with --quick)");
        var launches = CommonOptions.Launches(3, LabOptions.MaxLaunches, "fresh processes that each measure everything; the table gives the median launch with the lowest and highest (1 with --quick)");
        var outDirectory = CommonOptions.Out("where LOOP-<cores>.md goes (default: a new folder results/runs/loop/yyyy-MM-dd-HHmmss; the published one is --out results)");
        var quick = CommonOptions.Quick("a smoke test: small message counts, one run, one launch, a short warm-up; not for publishing");
        var result = CommonOptions.Result();
        var shapes = new Option<bool>("--shapes") { Description = "instead: the shapes users have, head to head (value or small reference messages, trivial or verifying handler; cold, steady and burst phases) for ActionBlock, Rx ObserveOn, RawRing, Ring, BatchDrainQueue and ObserveOnRing (and, in the burst phase, Ring and BatchDrainQueue on the pool runner); writes LOOP-SHAPES-<cores>.md" };
        var phases = new Option<string?>("--phases") { HelpName = "LIST", Description = "with --shapes: any of cold, steady and burst (a fresh path per burst in a warm process), comma-separated; cold,steady by default" };
        var onlyShape = new Option<string?>("--shape") { HelpName = "MESSAGE,HANDLER", Description = "with --shapes: one shape only, for example value,trivial (default: every shape)" };
        var warm = CommonOptions.Seconds("--warm-seconds", 10, "with --shapes: how long a steady or burst launch runs its one path alone before it measures (1 with --quick)");
        var childShape = new Option<string?>("--child-shape") { Hidden = true };
        var childPhase = new Option<Phase>("--child-phase") { Hidden = true };
        var childPath = new Option<ShapePath?>("--child-path") { Hidden = true };
        var command = new Command("loop", "The headline contenders as a plain loop outside BenchmarkDotNet: one producer posts N messages in one loop; warm-up runs until the runtime has settled on its code (at least 3 s, and a run that compiled no method), then the median of --runs. Each launch is a fresh process. Then Ring and ObserveOnRing of capacity 16 and 64 beside their default capacity; on one core each with its ceiling, capacity / (2 x the time one thread takes to hand the core to another). Last, the speed goals head to head, each goal's ratio taken within each of 14 rounds. Prefix taskset -c 0 for one core. Writes LOOP-<cores>.md.")
        {
            messages, runs, launches, outDirectory, quick, result, shapes, phases, onlyShape, warm, childShape, childPhase, childPath,
        };
        command.SetAction(parse =>
        {
            var isQuick = parse.GetValue(quick);
            var output = parse.InvocationConfiguration.Output;
            var count = CommonOptions.QuickOr(parse, messages, isQuick, QuickMessages);
            if (parse.GetValue(shapes))
            {
                var shapeSettings = new ShapeSettings(
                    ParsePhases(parse.GetValue(phases)),
                    parse.GetValue(onlyShape) is { } one ? [ParseShape(one)] : LoopShape.All,
                    count,
                    CommonOptions.QuickOr(parse, launches, isQuick, 1),
                    TimeSpan.FromSeconds(CommonOptions.QuickOr(parse, warm, isQuick, 1)),
                    isQuick);
                return Experiment.Run(
                    parse,
                    result,
                    outDirectory,
                    () => LoopShapes.Measure(ParseShape(parse.GetValue(childShape)), parse.GetValue(childPhase), parse.GetValue(childPath) ?? throw new UsageException($"loop: a shapes launch needs {childPath.Name}."), shapeSettings.Messages, shapeSettings.Warm),
                    experiment => LoopShapes.Run(shapeSettings, experiment, (shape, phase, path) => experiment.ChildArguments.With(childShape, $"{shape.Message},{shape.Handler}").With(childPhase, phase).With(childPath, path)),
                    launches);
            }

            var settings = new LoopSettings(count, CommonOptions.QuickOr(parse, runs, isQuick, 1), CommonOptions.QuickOr(parse, launches, isQuick, 1), isQuick);
            return Experiment.Run(parse, result, outDirectory, () => MeasureAll(settings, output), experiment => Run(settings, experiment), launches);
        });
        return command;
    }

    /// <summary>In the parent: the launches, each a child process, then LOOP-&lt;cores&gt;.md.</summary>
    private static int Run(LoopSettings settings, Experiment experiment)
    {
        var (messages, runs, launches, quick) = settings;
        var measured = experiment.Launches<LoopLaunch>(launches, LaunchLimit);
        var results = LoopSummary.Merge([.. measured.Select(l => l.Paths)]);
        var cores = experiment.Cores;
        var rx = results.Single(r => r.Path == "RxObserveOnTaskPool");
        var dataflow = results.Single(r => r.Path == "DataflowActionBlock");
        var spread = launches == 1
            ? $"the median of {runs} runs [lowest, highest]; ratios divide medians, and their bracket divides the extremes (lowest ÷ highest, highest ÷ lowest)"
            : $"in each of {launches} launches (each a fresh process) the median of {runs} runs; the table gives the median of the launches' medians [lowest, highest launch], and each ratio as the ratio of medians within each launch, then the median of the launches [lowest, highest]";
        var text = experiment.Header(
                "Plain loop",
                string.Create(CultureInfo.InvariantCulture, $"One producer thread posts {messages:N0} preallocated messages in one loop; a run ends when the consumer handled the last one, and is verified (count, checksum, order). Each path first runs warm-up runs until at least {FullWarmup.MinRuns} runs and {FullWarmup.Least.TotalSeconds:0} s have passed and the last run compiled no method (tiered compilation has replaced the first, unoptimized code; at most {FullWarmup.Most.TotalSeconds:0} s), then {spread}. The last column says how many warm-up runs that took and the most methods still compiled during one launch's measured runs. CPU is this process's CPU time over the run ÷ messages (median). The core round trip is how long a cache line took to go from one core to the other and back, measured just before and just after each path's runs (two threads handing a counter back and forth): on a VM it changes as the hypervisor moves the virtual CPUs, and every hand-off between cores pays it."),
                quick ? "smoke-test sizes, one run, a short warm-up" : null)
            .AppendLine("| path | msg/s | CPU ns/msg | × Rx ObserveOn (TaskPool) | × Dataflow ActionBlock | core round trip | warm-up runs / methods compiled while measured |")
            .AppendLine("|---|---:|---:|---:|---:|---:|---:|");
        foreach (var result in results.Where(r => r.Capacity is null))
        {
            text.AppendLine(CultureInfo.InvariantCulture, $"| {result.Path} | {result.Rate} | {result.CpuPerMessage:0.0} | {result.Times(rx)} | {result.Times(dataflow)} | {result.RoundTrip} | {result.WarmupRuns} / {result.MostCompiledDuringRuns} |");
        }

        text.AppendLine()
            .AppendLine("## Small rings")
            .AppendLine()
            .AppendLine(CultureInfo.InvariantCulture, $"The same loop through a `Ring` pipe and `ObserveOnRing` of capacity {string.Join(" and ", SmallCapacities)}, beside the same path at its default capacity ({Capacities.Bounded:N0}) in the same launch. On one core a bounded ring costs two thread hand-offs per ring-full (the producer finds it full and lets the consumer run; the consumer drains it and lets the producer run), so a ring of capacity C moves at most C messages per two hand-offs, whatever its code: the ceiling column is C ÷ (2 × the hand-off), with the hand-off measured just before and just after the path's runs (two threads taking turns on the core, each yielding until its turn; the median of 3 rounds of 100,000). On more than one core the two sides run at once and there is no such ceiling (\"–\").")
            .AppendLine()
            .AppendLine("| path | msg/s | CPU ns/msg | × default capacity | thread hand-off | ceiling, C ÷ (2 × hand-off) | × ceiling |")
            .AppendLine("|---|---:|---:|---:|---:|---:|---:|");
        foreach (var result in results.Where(r => r.Capacity is not null))
        {
            var byDefault = results.Single(r => r.Capacity is null && result.Path.StartsWith(r.Path + ",", StringComparison.Ordinal));
            text.AppendLine(CultureInfo.InvariantCulture, $"| {result.Path} | {result.Rate} | {result.CpuPerMessage:0.0} | {result.Times(byDefault)} | {result.HandOff} | {result.Ceiling} | {result.OfCeiling} |");
        }

        text.AppendLine()
            .AppendLine("## The speed goals, head to head")
            .AppendLine()
            .AppendLine(CultureInfo.InvariantCulture, $"Paths measured a minute apart see a different machine on a time-sliced VM, so the ratios above, taken between paths measured one after another, move with it. Here the paths the goals compare ({string.Join(", ", HeadToHeadContenders.Where(c => !c.Build.NeverParks).Select(c => c.Name))}) are built side by side once the loop above has compiled their code, and with them {string.Join(", ", HeadToHeadContenders.Where(c => c.Build.NeverParks).Select(c => c.Name))}, built afresh for each of its runs (its consumer never parks); they run {HeadToHeadRepeats * HeadToHead.Design(HeadToHeadContenders.Length).Length} rounds per launch, each round every path once ({messages:N0} messages, verified), back to back in a balanced order (each right after each other equally often), after a full collection; each goal's ratio is taken within each round (\"best pipe\" takes the faster of Ring and BatchDrainQueue in each round, which favours it over either alone). Ratio: the median of the launches' median rounds [lowest, highest launch] (one launch: its median round [lowest, highest round]); rounds at goal: over every round of every launch. A goal is met when the median of at least {HeadToHeadGoals[0].MinLaunches} launches reaches it, in two runs of this command: the verdict speaks for this run.")
            .AppendLine()
            .AppendLine("| goal | × | at least | rounds at goal | verdict |")
            .AppendLine("|---|---:|---:|---:|---|");
        foreach (var goal in HeadToHeadGoals)
        {
            var verdict = goal.Judge([.. measured.Select(l => l.HeadToHead.Single(r => r.Name == goal.Name).Rounds)]);
            text.AppendLine(CultureInfo.InvariantCulture, $"| {goal.Name} | {verdict.Ratio} | {goal.Threshold:0.0}× | {verdict.AtGoal} | {verdict.Verdict} |");
        }

        experiment.Write(string.Create(CultureInfo.InvariantCulture, $"LOOP-{cores}.md"), text, Measurements(results, cores));
        return 0;
    }

    /// <summary>
    /// Each path's rate and CPU per message as measurements: the launches' medians (one launch: its runs' median, lowest
    /// and highest). A small ring is its path under the condition "Capacity=C".
    /// </summary>
    private static List<Measurement> Measurements(IReadOnlyList<LoopSummary> results, int cores)
    {
        var measurements = new List<Measurement>();
        foreach (var result in results)
        {
            var contender = result.Capacity is null ? result.Path : result.Path.Split(',')[0];
            var conditions = result.Capacity is { } capacity ? string.Create(CultureInfo.InvariantCulture, $"Capacity={capacity}") : string.Empty;
            var family = Families.Of(contender);
            var rate = result.Launches.Count == 1
                ? new Measurement(Scenario, contender, family, conditions, Phase.Steady, cores, Measurement.MessagesPerSecond, result.Median, result.Lowest, result.Highest) { Samples = [result.Median] }
                : Measurement.Of(Scenario, contender, family, conditions, Phase.Steady, cores, Measurement.MessagesPerSecond, [.. result.Launches.Select(l => l.Median)]);
            measurements.Add(rate);
            measurements.Add(Measurement.Of(Scenario, contender, family, conditions, Phase.Steady, cores, Measurement.CpuNanosecondsPerMessage, [.. result.Launches.Select(l => l.CpuPerMessage)]));
        }

        return measurements;
    }

    /// <summary>In a launch's own process: every headline path, then the small rings, one after another; then the goals head to head.</summary>
    private static LoopLaunch MeasureAll(LoopSettings settings, TextWriter output)
    {
        var block = Message.Preallocate(settings.Messages);
        var warmup = settings.Quick ? QuickWarmup : FullWarmup;
        var results = new List<LoopResult>();
        var paths = HandOffContenders.Paths.ToList();
        var steps = paths.Count + (2 * SmallCapacities.Length) + 1;
        foreach (var path in paths)
        {
            Report(Measure(path, capacity: null, () => HandOffContenders.CreatePath(path), block, settings.Runs, warmup));
        }

        foreach (var capacity in SmallCapacities)
        {
            Report(Measure($"Ring, capacity {capacity}", capacity, () => new PipePath(PipeKind.Ring, new PipeOptions { Capacity = capacity }), block, settings.Runs, warmup));
            Report(Measure($"ObserveOnRing, capacity {capacity}", capacity, () => new ObservablePath(s => s.ObserveOnRing(capacity)), block, settings.Runs, warmup));
        }

        return new LoopLaunch(results, HeadToHeadRatios(block, (double)results.Count / steps, output));

        void Report(LoopResult result)
        {
            results.Add(result);
            BenchmarkProcess.ReportProgress(output, (double)results.Count / steps, string.Create(CultureInfo.InvariantCulture, $"{result.Path}: {result.Rate}, core round trip {result.RoundTrip}, thread hand-off {result.HandOff}"));
        }
    }

    /// <summary>
    /// The contenders of <see cref="HeadToHeadContenders"/> that park when idle, built side by side (an idle one costs the
    /// others nothing), two runs each to settle; those that never park are built afresh for each run; then the rounds of
    /// <see cref="HeadToHead"/>, and each goal of <see cref="HeadToHeadGoals"/> as its ratio in every round.
    /// </summary>
    private static List<LoopRatio> HeadToHeadRatios(Message[] block, double fractionDone, TextWriter output)
    {
        var kept = new Dictionary<string, IMessagePath>();
        try
        {
            foreach (var contender in HeadToHeadContenders.Where(c => !c.Build.NeverParks))
            {
                var path = contender.Build.Path!();
                kept.Add(contender.Name, path);
                RunOnce(path, Label(contender.Name), block);
                RunOnce(path, Label(contender.Name), block);
            }

            var rates = HeadToHead.Run(
                [.. HeadToHeadContenders.Select(c => new HeadToHead.Contender(c.Name, () => kept.TryGetValue(c.Name, out var path) ? RunOnce(path, Label(c.Name), block).Rate : RunAfresh(c, block)))],
                HeadToHeadRepeats,
                (_, _, _) => { });
            foreach (var path in kept.Values)
            {
                path.Complete();
            }

            var index = HeadToHeadContenders.Select((c, i) => (c.Name, i)).ToDictionary(p => p.Name, p => p.i);
            var ratios = HeadToHeadGoals
                .Select(goal => new LoopRatio(goal.Name, [.. Enumerable.Range(0, rates[0].Length).Select(round => goal.RatioOf(name => rates[index[name]][round]))]))
                .ToList();
            foreach (var (goal, ratio) in HeadToHeadGoals.Zip(ratios))
            {
                BenchmarkProcess.ReportProgress(output, fractionDone, $"head to head, {goal.Name}: {goal.Judge([ratio.Rounds]).Ratio}");
            }

            return ratios;
        }
        finally
        {
            DisposeAll([.. kept.Values]);
        }
    }

    private static string Label(string contender) => $"Loop {contender} (head to head)";

    /// <summary>Disposes every path, even when one throws; then throws what they threw.</summary>
    private static void DisposeAll(List<IMessagePath> paths)
    {
        var failures = new List<Exception>();
        foreach (var path in paths)
        {
            try
            {
                path.Dispose();
            }
            catch (Exception ex)
            {
                failures.Add(ex);
            }
        }

        if (failures.Count > 0)
        {
            throw new AggregateException("Disposing the head-to-head paths failed.", failures);
        }
    }

    /// <summary>
    /// A fresh path of a contender whose consumer never parks, one run, closed: its rate. The counting consumer's handler
    /// was compiled by the runs before.
    /// </summary>
    private static double RunAfresh(Contender<HandOffBuild> contender, Message[] block)
    {
        using var path = contender.Build.Path!();
        var rate = RunOnce(path, Label(contender.Name), block).Rate;
        path.Complete();
        return rate;
    }

    private static LoopResult Measure(string name, int? capacity, Func<IMessagePath> create, Message[] block, int runs, Warmup warmup)
    {
        var path = create();
        try
        {
            var label = $"Loop {name}";
            var warmups = warmup.Run(() => RunOnce(path, label, block));
            var roundTripBefore = CoreRoundTrip.Measure();
            var handOffBefore = ThreadHandOff.Measure();
            var compiledBefore = JitInfo.GetCompiledMethodCount();
            var rates = new List<double>();
            var cpu = new List<double>();
            for (var run = 0; run < runs; run++)
            {
                var (rate, cpuPerMessage) = RunOnce(path, label, block);
                rates.Add(rate);
                cpu.Add(cpuPerMessage);
            }

            var compiledDuringRuns = JitInfo.GetCompiledMethodCount() - compiledBefore;
            var roundTrip = (roundTripBefore + CoreRoundTrip.Measure()) / 2;
            var handOff = (handOffBefore + ThreadHandOff.Measure()) / 2;
            path.Complete();
            rates.Sort();
            cpu.Sort();
            return new LoopResult(name, rates[rates.Count / 2], rates[0], rates[^1], cpu[cpu.Count / 2], warmups, compiledDuringRuns, roundTrip, handOff, capacity);
        }
        finally
        {
            path.Dispose();
        }
    }

    /// <summary>Moves one block end to end and verifies it.</summary>
    /// <returns>The rate in messages per second and this process's CPU time per message in nanoseconds.</returns>
    private static (double Rate, double CpuPerMessage) RunOnce(IMessagePath path, string label, Message[] block)
    {
        path.Consumers.Arm(block.Length);
        var cpuBefore = Environment.CpuUsage.TotalTime;
        var watch = Stopwatch.StartNew();
        path.Post(block);
        path.Consumers.WaitForBlock(label);
        watch.Stop();
        var cpuUsed = Environment.CpuUsage.TotalTime - cpuBefore;
        path.Consumers.VerifyBlock(label);
        return (block.Length / watch.Elapsed.TotalSeconds, cpuUsed.TotalNanoseconds / block.Length);
    }

    private static List<Phase> ParsePhases(string? list)
        => list is null
            ? [Phase.Cold, Phase.Steady]
            : [.. list.Split(',', StringSplitOptions.TrimEntries).Select(name => Enum.TryParse<Phase>(name, ignoreCase: true, out var phase) && Enum.IsDefined(phase)
                ? phase
                : throw new UsageException($"loop: '{name}' is not a phase; use any of cold, steady and burst, comma-separated."))];

    private static LoopShape ParseShape(string? shape)
    {
        var parts = (shape ?? throw new UsageException("loop: a shapes launch needs --child-shape.")).Split(',', StringSplitOptions.TrimEntries);
        return parts.Length == 2
            && Enum.TryParse<ShapeMessage>(parts[0], ignoreCase: true, out var message) && Enum.IsDefined(message)
            && Enum.TryParse<ShapeHandler>(parts[1], ignoreCase: true, out var handler) && Enum.IsDefined(handler)
            ? new LoopShape(message, handler)
            : throw new UsageException($"loop: '{shape}' is not a shape; use MESSAGE,HANDLER with value or reference, and trivial or verifying.");
    }

    /// <summary>What one launch measures: messages per run, measured runs per path, launches, and whether it is a quick smoke run.</summary>
    private sealed record LoopSettings(int Messages, int Runs, int Launches, bool Quick);

}
