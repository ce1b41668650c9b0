using System.Globalization;
using System.Text;
using Concurrency.Benchmarks.Lab;
using Concurrency.Benchmarks.Runs;

namespace Concurrency.Benchmarks.UserShaped;

/// <summary>What <see cref="UserShapedPipes.Run"/> measures.</summary>
/// <param name="Paths">The paths, in the order of the first launch; every other launch takes them in reverse (ABBA).</param>
/// <param name="Phases">Cold, steady, or both.</param>
/// <param name="Cores">Core counts; each launch is pinned to its first N cores.</param>
/// <param name="Messages">Messages in the measured run (and in each warm round).</param>
/// <param name="Launches">Fresh processes per path, phase and core count.</param>
/// <param name="Warm">How long a steady launch runs the same pipe before it measures.</param>
/// <param name="Environment">Variables set in every launch (DOTNET_TieredCompilation=0, ...), none by default.</param>
public sealed record UserShapedOptions(
    IReadOnlyList<UserShapedPath> Paths,
    IReadOnlyList<UserShapedPhase> Phases,
    IReadOnlyList<int> Cores,
    int Messages,
    int Launches,
    TimeSpan Warm,
    IReadOnlyDictionary<string, string> Environment);

/// <summary>
/// Issue 26's plain program, as a user would write it: each launch a fresh process (<see cref="BenchmarkProcess"/>'s
/// child protocol) that creates one pipe through the public API with default options, posts <c>long</c> values 0..n−1
/// from one thread into the handler <c>sum += m</c>, completes it and waits for its completion, checks the sum, and
/// reports msg/s and the process's CPU per message. Launches interleave the paths in ABBA order, so a machine that
/// other work slows for a while slows every path alike. The table gives each cell's median launch [lowest, highest] and
/// each path's ratio to Dataflow's ActionBlock taken within each launch round, then the median.
/// </summary>
public static class UserShapedPipes
{
    /// <summary>The command the child is started with; <see cref="UserShapedCommand"/> registers it.</summary>
    public const string CommandName = "user-shaped";

    private static readonly TimeSpan LaunchLimit = TimeSpan.FromMinutes(10);

    /// <summary>Runs every launch and writes the table to <paramref name="output"/>; returns 0, or throws when a launch failed.</summary>
    public static int Run(UserShapedOptions options, TextWriter output)
    {
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(output);
        var results = new List<UserShapedResult>();
        for (var launch = 0; launch < options.Launches; launch++)
        {
            var order = launch % 2 == 0 ? options.Paths : [.. options.Paths.Reverse()];
            foreach (var cores in options.Cores)
            {
                foreach (var phase in options.Phases)
                {
                    foreach (var path in order)
                    {
                        var result = Launch(options, path, phase, cores);
                        output.WriteLine(string.Create(CultureInfo.InvariantCulture, $"launch {launch + 1}: {cores} core(s) {phase,-6} {path,-20} {result.MessagesPerSecond / 1e6,7:0.0} M msg/s {result.CpuNanosecondsPerMessage,6:0.0} ns CPU/msg, producer thread {result.ProducerCpuNanosecondsPerPost,5:0.0} ns/post ({result.WarmRounds} warm rounds)"));
                        results.Add(result);
                    }
                }
            }
        }

        output.WriteLine();
        output.Write(Table(options, results));
        return 0;
    }

    /// <summary>In the child: one launch's measurement, written as the result the parent reads.</summary>
    internal static void MeasureInChild(UserShapedPath path, UserShapedPhase phase, int cores, int messages, TimeSpan warm, string resultFile)
    {
        CorePinning.PinTo(cores);
        BenchmarkProcess.WriteResult(resultFile, UserShapedLaunch.Measure(path, phase, cores, messages, warm));
    }

    private static UserShapedResult Launch(UserShapedOptions options, UserShapedPath path, UserShapedPhase phase, int cores)
    {
        var environment = new Dictionary<string, string>(options.Environment)
        {
            ["DOTNET_PROCESSOR_COUNT"] = cores.ToString(CultureInfo.InvariantCulture),
        };
        string[] arguments =
        [
            CommandName,
            UserShapedCommand.ChildPathOption, path.ToString(),
            UserShapedCommand.ChildPhaseOption, phase.ToString(),
            UserShapedCommand.ChildCoresOption, cores.ToString(CultureInfo.InvariantCulture),
            UserShapedCommand.MessagesOption, options.Messages.ToString(CultureInfo.InvariantCulture),
            UserShapedCommand.WarmOption, options.Warm.TotalSeconds.ToString(CultureInfo.InvariantCulture),
        ];
        return BenchmarkProcess.RunForResult<UserShapedResult>(arguments, environment, (_, _) => { }, LaunchLimit, $"the {path} launch ({phase}, {cores} cores)");
    }

    private static string Table(UserShapedOptions options, List<UserShapedResult> results)
    {
        var settings = string.Join(' ', options.Environment.Select(e => $"{e.Key}={e.Value}"));
        var text = new StringBuilder()
            .AppendLine(CultureInfo.InvariantCulture, $"{options.Messages:N0} messages per measured run; {options.Launches} launches per cell; steady after {options.Warm.TotalSeconds:0} s of the same pipe; environment: {(settings.Length == 0 ? "default" : settings)}.")
            .AppendLine("Each cell: the median launch's msg/s (M), process CPU ns/msg and producer thread CPU ns/post, [lowest, highest msg/s]; × ActionBlock: the ratio within each launch round, median.")
            .AppendLine()
            .Append("| path |");
        var columns = options.Cores.SelectMany(c => options.Phases.Select(p => (Cores: c, Phase: p))).ToList();
        foreach (var (cores, phase) in columns)
        {
            text.Append(CultureInfo.InvariantCulture, $" {cores} core(s), {phase} | × ActionBlock |");
        }

        text.AppendLine().Append("|---|").AppendLine(string.Concat(Enumerable.Repeat("---:|---:|", columns.Count)));
        foreach (var path in options.Paths)
        {
            text.Append(CultureInfo.InvariantCulture, $"| {path} |");
            foreach (var (cores, phase) in columns)
            {
                var cell = results.Where(r => r.Path == path && r.Cores == cores && r.Phase == phase).ToList();
                var rates = cell.Select(r => r.MessagesPerSecond).Order().ToList();
                var cpu = Median([.. cell.Select(r => r.CpuNanosecondsPerMessage)]);
                var producer = cell.All(r => r.ProducerCpuNanosecondsPerPost is not null) ? Median([.. cell.Select(r => r.ProducerCpuNanosecondsPerPost!.Value)]) : double.NaN;
                text.Append(CultureInfo.InvariantCulture, $" {Median(rates) / 1e6:0.0} M, {cpu:0.0} ns, {producer:0.0} ns [{rates[0] / 1e6:0.0}, {rates[^1] / 1e6:0.0}] | {RatioToActionBlock(results, path, cores, phase)} |");
            }

            text.AppendLine();
        }

        return text.ToString();
    }

    // Launch k of a path against launch k of ActionBlock: the same round of the interleaved order, so the same machine moment.
    private static string RatioToActionBlock(List<UserShapedResult> results, UserShapedPath path, int cores, UserShapedPhase phase)
    {
        List<double> Rates(UserShapedPath p) => [.. results.Where(r => r.Path == p && r.Cores == cores && r.Phase == phase).Select(r => r.MessagesPerSecond)];
        var baseline = Rates(UserShapedPath.DataflowActionBlock);
        var own = Rates(path);
        return baseline.Count == 0 ? "–" : string.Create(CultureInfo.InvariantCulture, $"{Median([.. own.Zip(baseline, (a, b) => a / b)]):0.00}×");
    }

    private static double Median(List<double> values)
    {
        var sorted = values.Order().ToList();
        return sorted.Count % 2 == 1 ? sorted[sorted.Count / 2] : (sorted[(sorted.Count / 2) - 1] + sorted[sorted.Count / 2]) / 2;
    }
}
