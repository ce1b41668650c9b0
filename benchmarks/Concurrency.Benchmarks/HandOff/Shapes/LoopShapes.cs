using System.Diagnostics;
using System.Globalization;
using System.Text;
using Concurrency.Benchmarks.Backbone.Reporting;

namespace Concurrency.Benchmarks.HandOff.Shapes;

/// <summary>What <c>loop --shapes</c> measures.</summary>
/// <param name="Phases">Cold, steady, burst, or several.</param>
/// <param name="Shapes">The shapes measured (every one by default).</param>
/// <param name="Messages">Messages in each measured run (and in each warm run).</param>
/// <param name="Launches">Fresh processes per path, shape and phase.</param>
/// <param name="Warm">How long a steady or burst launch runs its path before it measures.</param>
/// <param name="Quick">A smoke test: the numbers are not for publishing.</param>
public sealed record ShapeSettings(IReadOnlyList<Phase> Phases, IReadOnlyList<LoopShape> Shapes, int Messages, int Launches, TimeSpan Warm, bool Quick);

/// <summary>One measured run of one path: msg/s, the process's CPU per message, and the producer thread's CPU per post (Linux; else 0).</summary>
public sealed record ShapeRun(ShapePath Path, double Rate, double CpuPerMessage, double ProducerCpuPerPost);

/// <summary>
/// What one child process measured of one path in one shape: a cold launch, the path's first run; a steady launch, the
/// path's measured runs in order, after <paramref name="WarmRounds"/> warm runs; a burst launch, its measured bursts in
/// order, each into a fresh path, after <paramref name="WarmRounds"/> warm bursts.
/// </summary>
public sealed record ShapeLaunch(ShapeMessage Message, ShapeHandler Handler, Phase Phase, IReadOnlyList<ShapeRun> Runs, int WarmRounds)
{
    /// <summary>Gets how many bursts ActionBlock missed its completion in (a Dataflow bug, docs/runtime-bugs.md); each was run again.</summary>
    public int MissedCompletions { get; init; }
}

/// <summary>
/// <c>loop --shapes</c>: the shapes users have, each head to head. A shape is a message (a <c>long</c> by value, or a
/// small preallocated object by reference) and a handler (<c>sum += m</c>, or the verifying one that also checks the
/// count and the order); each path is built through its public API with default options, one producer thread posts in
/// a plain <c>for</c> loop. Cold: a fresh process per path and shape creates the path once and measures its first
/// messages, ending with Complete and Completion. Steady: a fresh process per path and shape builds the path once
/// (RawRing, whose consumer never parks, afresh per run), runs it alone for the warm time, then measures
/// <see cref="SteadyRuns"/> runs, as a user's long-running program holds one path: no other path's threads, garbage or
/// thread-pool history share its process (with every path side by side, ActionBlock's steady rate was half a plain
/// program's). Burst: a fresh process per path and shape builds a fresh path for every burst (its creation timed with the
/// burst), posts the burst, completes the path and waits for its completion, for the warm time, then measures
/// <see cref="SteadyRuns"/> bursts, as a warm batch job does; no collection is forced between bursts, so each pays for
/// the garbage the last left, as a user's loop does. The burst phase also measures Ring and BatchDrainQueue with the pool
/// runner, for the pool runner's goal. In every phase the paths' launches interleave in ABBA order and each ratio is
/// taken within a launch round (steady and burst: the same run of each path's launch). Every run checks what the handler
/// kept.
/// </summary>
public static class LoopShapes
{
    /// <summary>The scenario the shapes' measurements are filed under (the plain loop's own table is "loop").</summary>
    public const string Scenario = "loop-shapes";

    private static readonly TimeSpan RunLimit = TimeSpan.FromMinutes(2);

    // A burst allocates a fresh path each time (ActionBlock's queue segments, about 160 MB a burst of 10 M), so its
    // launches run with a user's concurrent collector (Experiment.UserDefaults), as the actors' do; cold and steady keep
    // the project's setting, under which their published figures were taken.
    private static readonly TimeSpan LaunchLimit = TimeSpan.FromMinutes(20);

    // A burst launch builds a fresh ActionBlock per burst, tens of them, so it meets the block's missed completion
    // (docs/runtime-bugs.md) now and then; past this many in one launch it fails, naming the bug.
    private const int MostMissedCompletions = 3;
    // The paths every phase measures; the pool runner's paths are measured in the burst phase only.
    private static readonly ShapePath[] EveryPhasePaths =
        [ShapePath.DataflowActionBlock, ShapePath.RxObserveOnTaskPool, ShapePath.RawRing, ShapePath.Ring, ShapePath.BatchDrainQueue, ShapePath.ObserveOnRing];

    /// <summary>Measured runs per steady or burst launch: as many as the head-to-head rounds of the six paths had.</summary>
    public static readonly int SteadyRuns = HeadToHead.Design(EveryPhasePaths.Length).Length;

    private static readonly string[] BestPipe = [nameof(ShapePath.Ring), nameof(ShapePath.BatchDrainQueue)];

    // The issue's goals, in every shape and phase: the best pipe against ActionBlock, the drop-in against Rx, RawRing as the
    // ceiling (where it is itself below 1.2× ActionBlock, the best pipe's goal retires), and the post's CPU: ActionBlock's
    // CPU per message ÷ the best pipe's, at least 1 ÷ 1.1 (the goal holds it in the trivial-handler shape at 2 cores).
    private static readonly Goal[] Goals =
    [
        new("best pipe (the faster of Ring and BatchDrainQueue) ÷ ActionBlock", BestPipe, [nameof(ShapePath.DataflowActionBlock)], 1.2),
        new("ObserveOnRing ÷ Rx ObserveOn (TaskPool)", [nameof(ShapePath.ObserveOnRing)], [nameof(ShapePath.RxObserveOnTaskPool)], 3),
        new("RawRing (the ceiling) ÷ ActionBlock", [nameof(ShapePath.RawRing)], [nameof(ShapePath.DataflowActionBlock)], 1.2) { IsYardstick = true },
    ];

    // The burst phase's own goals: each default pipe against ActionBlock, and each pipe's pool runner against its dedicated
    // thread where there are cores for both sides (on one core a pool turn and a dedicated thread share the one core).
    private static readonly Goal[] BurstGoals =
    [
        new("Ring ÷ ActionBlock", [nameof(ShapePath.Ring)], [nameof(ShapePath.DataflowActionBlock)], 1.2) { Phase = Phase.Burst },
        new("BatchDrainQueue ÷ ActionBlock", [nameof(ShapePath.BatchDrainQueue)], [nameof(ShapePath.DataflowActionBlock)], 1.0) { Phase = Phase.Burst },
        new("Ring, pool runner ÷ Ring", [nameof(ShapePath.RingPoolRunner)], [nameof(ShapePath.Ring)], 0.8) { Phase = Phase.Burst, Cores = 2 },
        new("BatchDrainQueue, pool runner ÷ BatchDrainQueue", [nameof(ShapePath.BatchDrainQueuePoolRunner)], [nameof(ShapePath.BatchDrainQueue)], 0.8) { Phase = Phase.Burst, Cores = 2 },
    ];

    private static readonly Goal CpuGoal = new("ActionBlock's CPU per message ÷ the best pipe's (the best pipe at most 1.1× ActionBlock's)", BestPipe, [nameof(ShapePath.DataflowActionBlock)], 1 / 1.1);

    /// <summary>In the child: one launch, pinned as the parent is.</summary>
    public static ShapeLaunch Measure(LoopShape shape, Phase phase, ShapePath path, int messages, TimeSpan warm) => phase switch
    {
        Phase.Cold => new ShapeLaunch(shape.Message, shape.Handler, phase, [MeasureCold(path, shape, messages)], 0),
        Phase.Steady => MeasureSteady(path, shape, messages, warm),
        Phase.Burst => MeasureBurst(path, shape, messages, warm),
        _ => throw new ArgumentOutOfRangeException(nameof(phase), phase, "Unknown phase."),
    };

    /// <summary>The paths <paramref name="phase"/> measures, in the order of their first launch round.</summary>
    public static IReadOnlyList<ShapePath> PathsOf(Phase phase) => phase == Phase.Burst ? Enum.GetValues<ShapePath>() : EveryPhasePaths;

    /// <summary>The goals judged in <paramref name="phase"/> at <paramref name="cores"/> cores.</summary>
    private static Goal[] GoalsOf(Phase phase, int cores) =>
        phase == Phase.Burst ? [.. Goals, .. BurstGoals.Where(g => g.Cores is null || g.Cores == cores)] : Goals;

    /// <summary>
    /// In the parent: every launch (each round a child per phase, shape and path, the paths in ABBA order), then
    /// LOOP-SHAPES-&lt;cores&gt;.md and its measurements beside it; <paramref name="child"/> gives a child's command line.
    /// </summary>
    public static int Run(ShapeSettings settings, Experiment experiment, Func<LoopShape, Phase, ShapePath, ChildArguments> child)
    {
        ArgumentNullException.ThrowIfNull(settings);
        ArgumentNullException.ThrowIfNull(experiment);
        ArgumentNullException.ThrowIfNull(child);
        var launches = experiment.Launches<ShapeLaunch>(
            settings.Launches,
            LaunchLimit,
            launch =>
                from phase in settings.Phases
                from shape in settings.Shapes
                from path in launch % 2 == 0 ? PathsOf(phase) : PathsOf(phase).Reverse()
                select new Experiment.Launch($"{shape.Name}, {phase}, {path}", child(shape, phase, path), phase == Phase.Burst ? Experiment.UserDefaults : null),
            (launch, result) =>
            {
                foreach (var run in result.Runs)
                {
                    experiment.Output.WriteLine(string.Create(CultureInfo.InvariantCulture, $"  {new LoopShape(result.Message, result.Handler).Name,-20} {result.Phase,-6} {run.Path,-20} {run.Rate / 1e6,7:0.0} M msg/s {run.CpuPerMessage,6:0.0} ns CPU/msg, producer {run.ProducerCpuPerPost,5:0.0} ns/post"));
                }
            });
        var cores = experiment.Cores;
        var byLaunch = launches.Select(l => l.ToList()).ToArray();
        var measurements = Measurements(settings, byLaunch, cores);
        experiment.Write(string.Create(CultureInfo.InvariantCulture, $"LOOP-SHAPES-{cores}.md"), Table(settings, byLaunch, measurements, experiment), measurements);
        return 0;
    }

    private static ShapeRun MeasureCold(ShapePath path, LoopShape shape, int messages)
    {
        using var contender = ShapeContender.Create(path, shape);
        return Timed(path, contender, messages, () => contender.CompleteAndWait(RunLimit));
    }

    private static ShapeLaunch MeasureSteady(ShapePath path, LoopShape shape, int messages, TimeSpan warm)
    {
        using var kept = path == ShapePath.RawRing ? null : ShapeContender.Create(path, shape);
        var warmRuns = 0;
        var warming = Stopwatch.StartNew();
        while (warming.Elapsed < warm)
        {
            RunOnce();
            warmRuns++;
        }

        var runs = new List<ShapeRun>(SteadyRuns);
        for (var run = 0; run < SteadyRuns; run++)
        {
            HeadToHead.CollectGarbage();
            runs.Add(RunOnce());
        }

        if (kept is not null)
        {
            kept.CompleteAndWait(RunLimit);
            kept.Check($"{path} ({shape.Name})");
        }

        return new ShapeLaunch(shape.Message, shape.Handler, Phase.Steady, runs, warmRuns);

        ShapeRun RunOnce()
        {
            if (kept is not null)
            {
                return Timed(path, kept, messages, () => kept.WaitForHandled(RunLimit, path.ToString()));
            }

            using var afresh = ShapeContender.Create(path, shape);
            return Timed(path, afresh, messages, () => afresh.CompleteAndWait(RunLimit));
        }
    }

    private static ShapeLaunch MeasureBurst(ShapePath path, LoopShape shape, int messages, TimeSpan warm)
    {
        var missed = 0;
        var warmRuns = 0;
        var warming = Stopwatch.StartNew();
        do
        {
            Burst();
            warmRuns++;
        }
        while (warming.Elapsed < warm);

        var runs = new List<ShapeRun>(SteadyRuns);
        for (var run = 0; run < SteadyRuns; run++)
        {
            runs.Add(Burst());
        }

        return new ShapeLaunch(shape.Message, shape.Handler, Phase.Burst, runs, warmRuns) { MissedCompletions = missed };

        ShapeRun Burst()
        {
            while (true)
            {
                try
                {
                    return TimedBurst();
                }
                catch (MissedCompletionException) when (missed < MostMissedCompletions)
                {
                    // Every message was handled; only the block's completion never came. A user's program would wait for
                    // ever: the burst is counted and run again, so the launch measures the bursts that complete.
                    missed++;
                }
            }
        }

        ShapeRun TimedBurst()
        {
            // The path's creation (its consumer's thread or pool registration) is part of the burst, as in a user's loop.
            var cpuBefore = Environment.CpuUsage.TotalTime;
            var start = Stopwatch.GetTimestamp();
            using var fresh = ShapeContender.Create(path, shape);
            return Timed(path, fresh, messages, () => fresh.CompleteAndWait(RunLimit), cpuBefore, start);
        }
    }

    /// <summary>One run: the posts, then <paramref name="drain"/> until everything is handled; checked.</summary>
    private static ShapeRun Timed(ShapePath path, ShapeContender contender, int messages, Action drain)
        => Timed(path, contender, messages, drain, Environment.CpuUsage.TotalTime, Stopwatch.GetTimestamp());

    /// <summary>As above, timed from <paramref name="cpuBefore"/> and <paramref name="start"/>, read before the caller built the path.</summary>
    private static ShapeRun Timed(ShapePath path, ShapeContender contender, int messages, Action drain, TimeSpan cpuBefore, long start)
    {
        var producerBefore = ThreadCpu.IsAvailable ? ThreadCpu.Now() : 0;
        contender.Round(messages);
        var producer = ThreadCpu.IsAvailable ? (double)(ThreadCpu.Now() - producerBefore) / messages : 0;
        drain();
        var elapsed = Stopwatch.GetElapsedTime(start);
        var cpu = Environment.CpuUsage.TotalTime - cpuBefore;
        contender.Check($"{path} ({contender.Shape.Name})");
        return new ShapeRun(path, messages / elapsed.TotalSeconds, cpu.TotalNanoseconds / messages, producer);
    }

    /// <summary>Per launch, the runs of one path in one shape and phase (cold: one; steady: one per measured run).</summary>
    private static List<List<ShapeRun>> RunsOf(List<ShapeLaunch>[] launches, LoopShape shape, Phase phase, ShapePath path)
        => [.. launches.Select(l => l.Where(x => x.Message == shape.Message && x.Handler == shape.Handler && x.Phase == phase).SelectMany(x => x.Runs).Where(r => r.Path == path).ToList())];

    /// <summary>Per launch, a goal's ratio in each round: the same run of every path's launch (cold: its one run).</summary>
    private static List<IReadOnlyList<double>> Ratios(List<ShapeLaunch>[] launches, LoopShape shape, Phase phase, Goal goal, Func<ShapeRun, double> value)
    {
        var byPath = goal.Contenders.Distinct().ToDictionary(name => name, name => RunsOf(launches, shape, phase, Enum.Parse<ShapePath>(name)));
        return [.. Enumerable.Range(0, launches.Length).Select(l => (IReadOnlyList<double>)[.. Enumerable.Range(0, byPath.Values.Min(runs => runs[l].Count)).Select(r => goal.RatioOf(name => value(byPath[name][l][r])))])];
    }

    private static StringBuilder Table(ShapeSettings settings, List<ShapeLaunch>[] launches, List<Measurement> measurements, Experiment experiment)
    {
        var cores = experiment.Cores;
        var columns = settings.Phases.SelectMany(phase => settings.Shapes.Select(shape => (Shape: shape, Phase: phase))).ToList();
        var text = experiment.Header(
                "Plain loop, the shapes users have",
                string.Create(CultureInfo.InvariantCulture, $"One producer thread posts {settings.Messages:N0} messages per run in a plain `for` loop into each path built with default options. Shapes: a `long` by value or a small preallocated object by reference; the handler `sum += m`, or the verifying one (count, checksum, order). Each launch is a fresh process of one path in one shape, and paths interleave ABBA across launches. Cold: the path created once and its first run measured through Complete and Completion. Steady: the path alone in its process (RawRing afresh per run, its consumer never parks) run for {settings.Warm.TotalSeconds:0} s, then {SteadyRuns} measured runs. Burst: a fresh path for every burst, its creation, posts, Complete and Completion timed, bursts for {settings.Warm.TotalSeconds:0} s, then {SteadyRuns} measured bursts, no collection forced between them, under the runtime's default concurrent collector as a user's program runs (cold and steady keep this program's non-concurrent one); the pool runner's rows are measured in this phase only. {settings.Launches} launch(es). Each cell: the median launch's msg/s and process CPU ns per message (a launch's figure: its median run); \"–\" where a phase does not measure the path."),
                settings.Quick ? "smoke-test sizes, one launch, a short warm time" : null)
            .Append("| path |");
        foreach (var (shape, phase) in columns)
        {
            text.Append(CultureInfo.InvariantCulture, $" {shape.Name}, {phase.ToString().ToLowerInvariant()} |");
        }

        text.AppendLine().Append("|---|").AppendLine(string.Concat(Enumerable.Repeat("---:|", columns.Count)));
        foreach (var path in Enum.GetValues<ShapePath>().Where(p => settings.Phases.Any(phase => PathsOf(phase).Contains(p))))
        {
            text.Append(CultureInfo.InvariantCulture, $"| {path} |");
            foreach (var (shape, phase) in columns)
            {
                if (!PathsOf(phase).Contains(path))
                {
                    text.Append(" – |");
                    continue;
                }

                double Median(string metric) => measurements.Single(m => m.Contender == path.ToString() && m.Conditions == shape.Conditions && m.Phase == phase && m.Metric == metric).Median;
                var (rate, cpu) = (Median(Measurement.MessagesPerSecond), Median(Measurement.CpuNanosecondsPerMessage));
                text.Append(CultureInfo.InvariantCulture, $" {rate / 1e6:0.0} M, {cpu:0.0} ns |");
            }

            text.AppendLine();
        }

        var missedCompletions = launches.Sum(l => l.Sum(x => x.MissedCompletions));
        if (missedCompletions > 0)
        {
            text.AppendLine()
                .AppendLine(CultureInfo.InvariantCulture, $"ActionBlock missed its completion in {missedCompletions} burst(s) over every launch, every message handled (a Dataflow bug, see docs/runtime-bugs.md); each such burst was run again.");
        }

        text.AppendLine()
            .AppendLine("## The goals, per shape and phase")
            .AppendLine()
            .AppendLine("Each ratio is taken within a round (one launch of every path; steady: the same measured run of each), then the median launch [lowest, highest]; rounds at goal over every launch. A goal is met when the median of at least 5 launches reaches it, in two runs of the command: the verdict speaks for this run.")
            .AppendLine()
            .AppendLine("| shape | phase | goal | × | at least | rounds at goal | verdict |")
            .AppendLine("|---|---|---|---:|---:|---:|---|");
        foreach (var (shape, phase) in columns)
        {
            foreach (var goal in GoalsOf(phase, cores))
            {
                var verdict = goal.Judge(Ratios(launches, shape, phase, goal, r => r.Rate));
                text.AppendLine(CultureInfo.InvariantCulture, $"| {shape.Name} | {phase.ToString().ToLowerInvariant()} | {goal.Name} | {verdict.Ratio} | {goal.Threshold:0.00}× | {verdict.AtGoal} | {verdict.Verdict} |");
            }

            var cpu = CpuGoal.Judge(Ratios(launches, shape, phase, CpuGoal, r => 1 / r.CpuPerMessage));
            text.AppendLine(CultureInfo.InvariantCulture, $"| {shape.Name} | {phase.ToString().ToLowerInvariant()} | {CpuGoal.Name} | {cpu.Ratio} | {CpuGoal.Threshold:0.00}× | {cpu.AtGoal} | {(shape.Handler == ShapeHandler.Trivial && cores == 2 ? cpu.Verdict : "shown, not a goal here")} |");
        }

        return text;
    }

    private static List<Measurement> Measurements(ShapeSettings settings, List<ShapeLaunch>[] launches, int cores)
    {
        var measurements = new List<Measurement>();
        foreach (var phase in settings.Phases)
        {
            foreach (var shape in settings.Shapes)
            {
                foreach (var path in PathsOf(phase))
                {
                    var perLaunch = RunsOf(launches, shape, phase, path);
                    var name = path.ToString();
                    measurements.Add(Measurement.Of(Scenario, name, Families.Of(name), shape.Conditions, phase, cores, Measurement.MessagesPerSecond, [.. perLaunch.Select(runs => Bootstrap.MedianOf([.. runs.Select(r => r.Rate)]))]));
                    measurements.Add(Measurement.Of(Scenario, name, Families.Of(name), shape.Conditions, phase, cores, Measurement.CpuNanosecondsPerMessage, [.. perLaunch.Select(runs => Bootstrap.MedianOf([.. runs.Select(r => r.CpuPerMessage)]))]));
                }
            }
        }

        return measurements;
    }
}
