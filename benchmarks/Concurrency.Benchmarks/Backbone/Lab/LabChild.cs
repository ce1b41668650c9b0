using System.Globalization;
using System.Runtime;

namespace Concurrency.Benchmarks.Backbone.Lab;

/// <summary>
/// One experiment at one core count in a process of its own, so its pinning, its thread pool and its garbage do not leak
/// into the next, through the program's one child protocol (<see cref="BenchmarkProcess"/>): <c>lab NAME --cores N
/// --gc MODE [--quick] [--contender NAME] --result FILE</c>, with the peers the lab was given.
/// </summary>
internal static class LabChild
{
    /// <summary>The most one child may take.</summary>
    public static readonly TimeSpan Limit = TimeSpan.FromMinutes(60);

    // The lab's options, for their names and types in a child's line.
    private static readonly LabOptions.Symbols Options = new(CommonOptions.MostCores);

    /// <summary>In the child: pins, runs, writes the outcome. Returns the exit code.</summary>
    public static int RunHere(LabOptions options, TextWriter output, TextWriter error)
    {
        var experiment = options.Experiments[0];
        var cores = options.Cores[0];
        if (GCSettings.IsServerGC != options.ServerGc)
        {
            // The parent sets the collector through the environment: a runtime that ignored it would publish the wrong one.
            error.WriteLine($"{experiment.Name}: asked for the {Collector(options.ServerGc)} collector, running the {Collector(GCSettings.IsServerGC)} one.");
            return 1;
        }

        CorePinning.PinTo(cores);
        try
        {
            var context = new LabContext(
                cores,
                options.Quick,
                (fraction, step) => BenchmarkProcess.ReportProgress(output, fraction, step),
                peers: options.Peers,
                contender: options.Contender,
                line: options.Line,
                kill: options.Kill);
            var outcome = experiment.Run(context);
            BenchmarkProcess.WriteResult(options.ResultFile!, outcome);
            return 0;
        }
        catch (LabVerificationException failure)
        {
            error.WriteLine($"{experiment.Name} at {cores} cores did not verify: {failure.Message}");
            return 1;
        }
    }

    /// <summary>The collector's name as <c>--gc</c> takes it.</summary>
    public static string Collector(bool server) => server ? "server" : "workstation";

    /// <summary>
    /// The child that runs <paramref name="experiment"/> at <paramref name="cores"/> cores: <paramref name="line"/> (the
    /// lab's own, less what only the parent reads) with that experiment, core count, collector, quick and contender set,
    /// and the runtime's settings for that many cores and that collector.
    /// </summary>
    public static Experiment.Launch Launch(ChildArguments line, ILabExperiment experiment, int cores, bool quick, bool serverGc, string? contender = null)
    {
        ArgumentNullException.ThrowIfNull(line);
        ArgumentNullException.ThrowIfNull(experiment);
        var arguments = line
            .With(Options.Names, [experiment.Name])
            .With(Options.Cores, [cores])
            .With(Options.Collector, Collector(serverGc))
            .With(Options.Quick, quick)
            .With(Options.Contender, contender);

        // The runtime sizes its thread pool and spin waits from this; the benchmark jobs set the same tiering knob.
        var environment = new Dictionary<string, string>
        {
            ["DOTNET_PROCESSOR_COUNT"] = cores.ToString(CultureInfo.InvariantCulture),
            ["DOTNET_TC_DelaySingleProcMultiplier"] = "1",

            // The collector, set for the child and whatever it starts (the gRPC experiment's peer process); the child checks it.
            ["DOTNET_gcServer"] = serverGc ? "1" : "0",
        };
        return new Experiment.Launch(string.Create(CultureInfo.InvariantCulture, $"{experiment.Name} at {cores} cores"), arguments, environment);
    }

    /// <summary>
    /// In an experiment that runs each of its contenders in a fresh process of its own: starts the child for
    /// <paramref name="contender"/>, passes its progress on, and returns its outcome (see <see cref="LabContext.Contender"/>).
    /// </summary>
    /// <exception cref="ChildProcessException">The child failed or ran past the limit; the message carries its error output.</exception>
    public static LabOutcome Start(LabContext context, ILabExperiment experiment, string contender, Action<double, string> progress)
    {
        ArgumentNullException.ThrowIfNull(context);
        var child = Launch(context.Line, experiment, context.Cores, context.Quick, GCSettings.IsServerGC, contender);
        return BenchmarkProcess.RunForResult<LabOutcome>(child.Arguments, child.Environment, progress, Limit, child.Label);
    }
}
