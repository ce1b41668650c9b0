using System.CommandLine;
using System.Globalization;
using System.Text;

namespace Concurrency.Benchmarks.Backbone.Runs;

/// <summary>
/// One run of a measuring command (loop, actors, latency, idle, footprint, the lab), the pipeline every one of them goes
/// through. A process given the hidden <c>--result FILE</c> is a child: it measures and writes its result for its parent
/// (<see cref="Run{TResult}"/>). The parent records where its results come from (<see cref="Provenance"/>), launches fresh
/// children with <see cref="ChildArguments"/> (its own command line less what only it reads), each
/// <see cref="BenchmarkProcess"/>'s protocol, folds each figure's launches into a <see cref="Measurement"/> (the median
/// launch with the lowest and highest), writes the Markdown's header (<see cref="Header"/>), then the Markdown and its
/// <see cref="ResultSet"/> beside it (<see cref="Write"/>).
/// </summary>
public sealed class Experiment
{
    /// <summary>
    /// The runtime's defaults a user's program has: its garbage collector is concurrent, where this program's project turns
    /// concurrent collection off for its own measurements. Children that play a user's program run with it.
    /// </summary>
    public static readonly IReadOnlyDictionary<string, string> UserDefaults = new Dictionary<string, string> { ["DOTNET_gcConcurrent"] = "1" };

    private Experiment(ParseResult parse, string? outDirectory, TextWriter output, Symbol[] parentOnly)
    {
        Command = parse.CommandResult.Command.Name;
        Provenance = RunProvenance.Capture(Commands.Arguments(parse));
        OutDirectory = outDirectory ?? StampedFolder.Create(Command);
        Output = output;
        ChildArguments = ChildArguments.Of(parse, parentOnly);
    }

    /// <summary>Gets the command's name: its folder under results/runs, its launches' name in errors, its result set's command.</summary>
    public string Command { get; }

    /// <summary>Gets where the results come from, as the run started.</summary>
    public RunProvenance Provenance { get; }

    /// <summary>Gets where the command writes.</summary>
    public string OutDirectory { get; }

    public TextWriter Output { get; }

    /// <summary>Gets the cores this process may use.</summary>
    public int Cores { get; } = Environment.ProcessorCount;

    /// <summary>Gets the command line a child starts from: the parent's own, less what only the parent reads.</summary>
    public ChildArguments ChildArguments { get; }

    /// <summary>
    /// The header's machine line (CPU, cores, OS, runtime, commit, then <paramref name="aside"/>) and the command line that
    /// reproduces the run, pinned to one core where this process was.
    /// </summary>
    public static string MachineAndCommand(RunProvenance provenance, int cores, string? aside = null)
    {
        ArgumentNullException.ThrowIfNull(provenance);
        return string.Create(CultureInfo.InvariantCulture, $"Machine: {provenance.Cpu}, {provenance.LogicalCores} logical cores ({cores} usable by this process), {provenance.Os}, {provenance.Runtime}. Commit {provenance.CommitLabel}.{(aside is null ? string.Empty : " " + aside)}{Environment.NewLine}")
            + $"Command: `{(cores == 1 ? "taskset -c 0 " : string.Empty)}dotnet run -c Release --project benchmarks/Concurrency.Benchmarks -- {provenance.Arguments}`";
    }

    /// <summary>The banner of a quick run's Markdown; <paramref name="what"/> says what a quick run shrinks.</summary>
    public static string QuickBanner(string what) => $"**Quick run (--quick): {what}. These numbers are not for publishing.**";

    /// <summary>"1 core", "2 cores".</summary>
    public static string CoreCount(int cores) => string.Create(CultureInfo.InvariantCulture, $"{cores} {(cores == 1 ? "core" : "cores")}");

    /// <summary>
    /// A command's action: in a child (<paramref name="result"/> given), <paramref name="measure"/> here and write what it
    /// measured to the file for the parent; in the parent, <paramref name="run"/> the experiment.
    /// </summary>
    /// <param name="parentOnly">The options only the parent reads (how many launches, say), left out of the children's line.</param>
    public static int Run<TResult>(ParseResult parse, Option<string?> result, Option<string?> outDirectory, Func<TResult> measure, Func<Experiment, int> run, params Symbol[] parentOnly)
    {
        ArgumentNullException.ThrowIfNull(parse);
        ArgumentNullException.ThrowIfNull(measure);
        ArgumentNullException.ThrowIfNull(run);
        if (parse.GetValue(result) is { } resultFile)
        {
            BenchmarkProcess.WriteResult(resultFile, measure());
            return 0;
        }

        return run(Start(parse, outDirectory, parentOnly));
    }

    /// <summary>The parent's side of a command's run: its provenance taken now, and where it writes (a new dated folder unless --out said).</summary>
    public static Experiment Start(ParseResult parse, Option<string?> outDirectory, params Symbol[] parentOnly)
    {
        ArgumentNullException.ThrowIfNull(parse);
        return new Experiment(parse, parse.GetValue(outDirectory), parse.InvocationConfiguration.Output, [outDirectory, .. parentOnly]);
    }

    /// <summary>
    /// <paramref name="count"/> launches of one fresh child each, on <see cref="ChildArguments"/> as they are; each child's
    /// progress printed as it comes. Returns each launch's result, in order.
    /// </summary>
    public IReadOnlyList<TResult> Launches<TResult>(int count, TimeSpan limit)
        => [.. Launches<TResult>(count, limit, _ => [new Launch(string.Empty, ChildArguments)]).Select(launch => launch[0])];

    /// <summary>
    /// <paramref name="count"/> launches, each the fresh children <paramref name="children"/> gives for it (one per
    /// contender, in that launch's rotation, say), one after another; each child's progress printed as it comes. Returns
    /// per launch each child's result, in its order, each also handed to <paramref name="finished"/> (with its launch's
    /// index) as it comes.
    /// </summary>
    /// <param name="progress">Where the children's progress goes (the launch's index, fraction done, step); by default a
    /// line per launch and one per step.</param>
    /// <exception cref="ChildProcessException">A child failed, ran past <paramref name="limit"/> or wrote no result.</exception>
    public IReadOnlyList<IReadOnlyList<TResult>> Launches<TResult>(int count, TimeSpan limit, Func<int, IEnumerable<Launch>> children, Action<int, TResult>? finished = null, Action<int, double, string>? progress = null)
    {
        ArgumentNullException.ThrowIfNull(children);
        var launches = new List<IReadOnlyList<TResult>>(count);
        for (var launch = 1; launch <= count; launch++)
        {
            if (progress is null)
            {
                Output.WriteLine(string.Create(CultureInfo.InvariantCulture, $"Launch {launch} of {count}:"));
            }

            var index = launch - 1;
            var what = string.Create(CultureInfo.InvariantCulture, $"{Command} launch {launch}");
            var results = new List<TResult>();
            Action<double, string> report = progress is { } given ? (fraction, step) => given(index, fraction, step) : (_, step) => Output.WriteLine("  " + step);
            foreach (var child in children(index))
            {
                var result = BenchmarkProcess.RunForResult<TResult>(
                    child.Arguments,
                    child.Environment,
                    report,
                    limit,
                    child.Label.Length == 0 ? what : $"{what}, {child.Label}");
                finished?.Invoke(index, result);
                results.Add(result);
            }

            launches.Add(results);
        }

        return launches;
    }

    /// <summary>The items in launch <paramref name="launch"/>'s order: turned by one each launch, so each takes each place in turn.</summary>
    public static IEnumerable<T> Rotation<T>(IReadOnlyList<T> items, int launch)
    {
        ArgumentNullException.ThrowIfNull(items);
        var start = items.Count == 0 ? 0 : launch % items.Count;
        return items.Skip(start).Concat(items.Take(start));
    }

    /// <summary>
    /// The top of the command's Markdown: "# TITLE, N cores", the <c>--quick</c> banner where <paramref name="quick"/> says
    /// what a quick run shrinks, the method, the machine and the command line.
    /// </summary>
    public StringBuilder Header(string title, string method, string? quick = null)
    {
        var text = new StringBuilder()
            .AppendLine(CultureInfo.InvariantCulture, $"# {title}, {CoreCount(Cores)}")
            .AppendLine();
        if (quick is not null)
        {
            text.AppendLine(QuickBanner(quick)).AppendLine();
        }

        return text.AppendLine(method).AppendLine().AppendLine(MachineAndCommand(Provenance, Cores)).AppendLine();
    }

    /// <summary>
    /// Writes <paramref name="text"/> as <paramref name="fileName"/> in <see cref="OutDirectory"/> and the measurements as
    /// the result set beside it (under <paramref name="resultSet"/>, by default the command's name), then prints the text
    /// and where it went.
    /// </summary>
    /// <returns>The Markdown file's path.</returns>
    public string Write(string fileName, StringBuilder text, IReadOnlyList<Measurement> measurements, string? resultSet = null)
    {
        ArgumentNullException.ThrowIfNull(text);
        Directory.CreateDirectory(OutDirectory);
        var path = Path.Combine(OutDirectory, fileName);
        File.WriteAllText(path, text.ToString());
        var json = new ResultSet(resultSet ?? Command, Provenance with { FinishedUtc = DateTime.UtcNow }, measurements).WriteBeside(path);
        Output.WriteLine(text.ToString());
        Output.WriteLine($"Wrote {path} and {json}.");
        return path;
    }

    /// <summary>One child process of a launch: a label for errors ("AkkaNet"), its command line, the variables set for it only.</summary>
    public sealed record Launch(string Label, ChildArguments Arguments, IReadOnlyDictionary<string, string>? Environment = null);
}
