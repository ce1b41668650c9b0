using System.CommandLine;
using System.Diagnostics;
using System.Globalization;

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
        command.SetAction(parse => Experiment.Run(
            parse,
            result,
            outDirectory,
            () => Measure(parse.GetValue(contender) ?? throw new UsageException("footprint child: --contender is missing."), parse.GetValue(actors)),
            experiment => Run(parse.GetValue(actors), parse.GetValue(runs), experiment, kind => experiment.ChildArguments.With(contender, kind)),
            runs));
        return command;
    }

    /// <summary>In the parent: --runs launches, each a child process per contender, then FOOTPRINT.md.</summary>
    private static int Run(int actors, int runs, Experiment experiment, Func<string, ChildArguments> child)
    {
        var launches = experiment.Launches<double[]>(runs, ChildLimit, _ => ActorContenders.Names.Select(kind => new Experiment.Launch(kind, child(kind))));
        var text = experiment.Header(
                "What an idle actor costs",
                string.Create(CultureInfo.InvariantCulture, $"Each contender in a process of its own, {runs} runs: the managed heap added by {actors:N0} actors that never got a message, per actor (full collection before and after); then {TouchedActors:N0} more actors each handle one message, and the process's threads are counted. Median [lowest, highest]."))
            .AppendLine(CultureInfo.InvariantCulture, $"| actor system | bytes per idle actor ({actors:N0} actors) | process threads with {TouchedActors:N0} actors | thread-pool threads |")
            .AppendLine("|---|---:|---:|---:|");
        var measurements = new List<Measurement>();
        foreach (var (kind, index) in ActorContenders.Names.Select((kind, index) => (kind, index)))
        {
            var samples = launches.Select(launch => launch[index]).ToList();
            measurements.Add(Measurement.Of("footprint", kind, ActorContenders.Registry[kind].Family, string.Create(CultureInfo.InvariantCulture, $"Actors={actors}"), Phase.Cold, experiment.Cores, Measurement.BytesPerIdleActor, [.. samples.Select(s => s[0])]));
            var cells = Enumerable.Range(0, 3).Select(column => LabSample.Of([.. samples.Select(s => s[column])]).Format("0"));
            text.AppendLine(CultureInfo.InvariantCulture, $"| {kind} | {string.Join(" | ", cells)} |");
            experiment.Output.WriteLine($"{kind}: {string.Join(", ", samples.Select(s => string.Join('/', s)))}");
        }

        experiment.Write("FOOTPRINT.md", text, measurements);
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
}
