using System.Diagnostics;
using System.Globalization;
using System.CommandLine;
using System.Text;
using Concurrency.Benchmarks.Cli;
using Concurrency.Benchmarks.Contenders;
using Concurrency.Benchmarks.Runs;
using Concurrency.Messaging.Actors;

namespace Concurrency.Benchmarks.Actors;

/// <summary>
/// <c>-- footprint [--actors N] [--runs N] [--out DIR]</c>: what an idle actor costs. Each contender runs in a process of
/// its own (a system's threads outlive its shutdown), --runs times: it creates N actors (default 100,000) that never
/// got a message, lets them start (2 s), and reports the managed heap they added per actor (after a full collection, before and after); then it
/// creates 10,000 more, sends each one message, waits until all were handled, and reports the process's threads.
/// Writes FOOTPRINT.md with the machine and commit (into a new folder under results/runs/footprint unless <c>--out</c> says
/// where); the medians are published, with the lowest and highest run. Each child speaks <see cref="BenchmarkProcess"/>'s protocol.
/// </summary>
public static class FootprintCommand
{
    private const int TouchedActors = 10_000;

    private static readonly TimeSpan Settle = TimeSpan.FromSeconds(2);

    private static readonly TimeSpan ChildLimit = TimeSpan.FromMinutes(5);

    public static Command Create()
    {
        var actors = CommonOptions.WholeNumber("--actors", "N", 100_000, 1, 10_000_000, "idle actors whose heap is measured, per contender");
        var runs = CommonOptions.WholeNumber("--runs", "N", 3, 1, 100, "fresh processes per contender; the table gives the median with the lowest and highest");
        var outDirectory = CommonOptions.Out("where FOOTPRINT.md goes (default: a new folder results/runs/footprint/yyyy-MM-dd-HHmmss; the published one is --out results/actors)");
        var contender = new Option<string?>("--contender") { Hidden = true };
        var result = CommonOptions.Result();
        var command = new Command("footprint", "What an idle actor costs, for our actors and the peers, each in a process of its own, --runs times: the managed heap per actor of N actors that never got a message, and the process's threads once 10,000 actors each handled one. Writes FOOTPRINT.md.")
        {
            actors, runs, outDirectory, contender, result,
        };
        command.SetAction(parse =>
        {
            var output = parse.InvocationConfiguration.Output;
            if (parse.GetValue(result) is { } resultFile)
            {
                var kind = parse.GetValue(contender) ?? throw new UsageException("footprint child: --contender is missing.");
                BenchmarkProcess.WriteResult(resultFile, Measure(kind, parse.GetValue(actors)));
                return 0;
            }

            return Run(parse.GetValue(actors), parse.GetValue(runs), parse.GetValue(outDirectory) ?? StampedFolder.Create("footprint"), Commands.Arguments(parse), output);
        });
        return command;
    }

    /// <summary>In the parent: each contender in --runs child processes, then FOOTPRINT.md.</summary>
    private static int Run(int actors, int runs, string outDirectory, IReadOnlyList<string> arguments, TextWriter output)
    {
        var provenance = RunProvenance.Capture(arguments);
        var table = new StringBuilder()
            .AppendLine(CultureInfo.InvariantCulture, $"| actor system | bytes per idle actor ({actors:N0} actors) | process threads with {TouchedActors:N0} actors | thread-pool threads |")
            .AppendLine("|---|---:|---:|---:|");
        var measurements = new List<Measurement>();
        foreach (var kind in ActorContenders.Names)
        {
            var samples = Enumerable.Range(0, runs).Select(_ => RunChild(kind, actors)).ToList();
            measurements.Add(Measurement.Of("footprint", kind, ActorContenders.Registry[kind].Family, string.Create(CultureInfo.InvariantCulture, $"Actors={actors}"), Phase.Cold, Environment.ProcessorCount, Measurement.BytesPerIdleActor, [.. samples.Select(s => s[0])]));
            var cells = Enumerable.Range(0, 3).Select(column => Median(samples.Select(s => s[column]).ToList()));
            table.AppendLine(CultureInfo.InvariantCulture, $"| {kind} | {string.Join(" | ", cells)} |");
            output.WriteLine($"{kind}: {string.Join(", ", samples.Select(s => string.Join('/', s)))}");
        }

        var file = MeasurementFile.Write(output, outDirectory, "FOOTPRINT.md", "What an idle actor costs", $"Each contender in a process of its own, {runs} runs: the managed heap added by {actors:N0} actors that never got a message, per actor (full collection before and after); then {TouchedActors:N0} more actors each handle one message, and the process's threads are counted. Median [lowest, highest].", provenance, table);
        output.WriteLine($"Wrote {new ResultSet("footprint", provenance, measurements).WriteBeside(file)}.");
        return 0;
    }

    /// <summary>In this process: bytes per idle actor, process threads, thread-pool threads.</summary>
    private static double[] Measure(string kind, int actors)
    {
        var handled = 0;
        void Received() => Interlocked.Increment(ref handled);

        using var idle = ActorContenders.Registry[kind].Build.Footprint();
        var before = GC.GetTotalMemory(forceFullCollection: true);
        idle.Spawn(actors, Received);
        Thread.Sleep(Settle); // the peers start their actors asynchronously: let every actor be created and started
        var after = GC.GetTotalMemory(forceFullCollection: true);
        var bytesPerActor = (after - before) / (double)actors;
        GC.KeepAlive(idle);

        using var touched = ActorContenders.Registry[kind].Build.Footprint();
        touched.Spawn(TouchedActors, Received);
        touched.TellEach();
        if (!SpinWait.SpinUntil(() => Volatile.Read(ref handled) == TouchedActors, TimeSpan.FromSeconds(60)))
        {
            throw new TimeoutException($"{kind}: {TouchedActors - handled} of {TouchedActors} actors never handled their message.");
        }

        using var process = Process.GetCurrentProcess();
        return [Math.Round(bytesPerActor), process.Threads.Count, ThreadPool.ThreadCount];
    }

    private static double[] RunChild(string kind, int actors)
        => BenchmarkProcess.RunForResult<double[]>(
            ["footprint", "--contender", kind, "--actors", actors.ToString(CultureInfo.InvariantCulture)],
            environment: null,
            (_, _) => { },
            ChildLimit,
            $"The {kind} footprint process");

    private static string Median(List<double> values)
    {
        values.Sort();
        return string.Create(CultureInfo.InvariantCulture, $"{values[values.Count / 2]:0} [{values[0]:0}, {values[^1]:0}]");
    }
}
