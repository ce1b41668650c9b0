using System.Diagnostics;
using System.Globalization;
using System.Runtime;
using Concurrency.Benchmarks.Runs;

namespace Concurrency.Benchmarks.Lab;

/// <summary>
/// One experiment at one core count in a process of its own, so its pinning, its thread pool and its garbage do not leak
/// into the next, through the program's one child protocol (<see cref="BenchmarkProcess"/>): <c>lab NAME --cores N
/// --gc MODE [--quick] [--contender NAME] --result FILE</c>.
/// </summary>
internal static class LabChild
{
    private static readonly TimeSpan Limit = TimeSpan.FromMinutes(60);

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
                contender: options.Contender);
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
    /// In the parent: starts the child, passes its progress on, and returns its outcome. An experiment that runs each of
    /// its contenders in a fresh process calls this too, naming the <paramref name="contender"/> (see <see cref="LabContext.Contender"/>).
    /// </summary>
    /// <exception cref="InvalidOperationException">The child failed or ran past the limit; the message carries its error output.</exception>
    public static LabOutcome Start(ILabExperiment experiment, int cores, bool quick, LabPeers peers, Action<double, string> progress, bool serverGc = false, string? contender = null)
    {
        string[] arguments = ["lab", experiment.Name, "--cores", cores.ToString(CultureInfo.InvariantCulture), "--gc", Collector(serverGc), .. contender is null ? Array.Empty<string>() : ["--contender", contender]];

        // The runtime sizes its thread pool and spin waits from this; the benchmark jobs set the same tiering knob.
        var environment = new Dictionary<string, string>
        {
            ["DOTNET_PROCESSOR_COUNT"] = cores.ToString(CultureInfo.InvariantCulture),
            ["DOTNET_TC_DelaySingleProcMultiplier"] = "1",

            // The collector, set for the child and whatever it starts (the gRPC experiment's peer process); the child checks it.
            ["DOTNET_gcServer"] = serverGc ? "1" : "0",
        };
        return BenchmarkProcess.RunForResult<LabOutcome>(
            [.. arguments, .. quick ? ["--quick"] : Array.Empty<string>(), .. peers.Arguments()],
            environment,
            progress,
            Limit,
            string.Create(CultureInfo.InvariantCulture, $"{experiment.Name} at {cores} cores"));
    }
}
