using System.Diagnostics;
using System.Globalization;
using System.Text;
using Concurrency.Benchmarks.Runs;
using Concurrency.Messaging.Actors;

namespace Concurrency.Benchmarks.Actors;

/// <summary>
/// <c>-- footprint [--actors N] [--runs N] [--out DIR]</c>: what an idle actor costs. Each contender runs in a process of
/// its own (a system's threads outlive its shutdown), --runs times: it creates N actors (default 100,000) that never
/// got a message, lets them start (2 s), and reports the managed heap they added per actor (after a full collection, before and after); then it
/// creates 10,000 more, sends each one message, waits until all were handled, and reports the process's threads.
/// Writes results/FOOTPRINT.md with the machine and commit; the medians are published, with the lowest and highest run.
/// </summary>
public static class FootprintCommand
{
    private const int TouchedActors = 10_000;

    private static readonly TimeSpan Settle = TimeSpan.FromSeconds(2);

    public static int Run(IReadOnlyList<string> args, TextWriter output)
    {
        var actors = 100_000;
        var runs = 3;
        var outDirectory = "results";
        string? only = null;
        for (var i = 0; i < args.Count; i++)
        {
            switch (args[i])
            {
                case "--actors" when i + 1 < args.Count && int.TryParse(args[i + 1], NumberStyles.None, CultureInfo.InvariantCulture, out var a) && a > 0:
                    actors = a;
                    i++;
                    break;
                case "--runs" when i + 1 < args.Count && int.TryParse(args[i + 1], NumberStyles.None, CultureInfo.InvariantCulture, out var r) && r > 0:
                    runs = r;
                    i++;
                    break;
                case "--out" when i + 1 < args.Count:
                    outDirectory = args[++i];
                    break;
                case "--contender" when i + 1 < args.Count && Enum.TryParse<ActorContenderKind>(args[i + 1], out _):
                    only = args[++i];
                    break;
                default:
                    throw new Cli.UsageException($"footprint: unknown or incomplete option '{args[i]}'; see --help.");
            }
        }

        if (only is not null)
        {
            // The child process: one contender, one line of results for the parent.
            output.WriteLine(Measure(Enum.Parse<ActorContenderKind>(only), actors));
            return 0;
        }

        var provenance = RunProvenance.Capture(["footprint", .. args]);
        var table = new StringBuilder()
            .AppendLine(CultureInfo.InvariantCulture, $"| actor system | bytes per idle actor ({actors:N0} actors) | process threads with {TouchedActors:N0} actors | thread-pool threads |")
            .AppendLine("|---|---:|---:|---:|");
        foreach (var kind in Enum.GetValues<ActorContenderKind>())
        {
            var samples = Enumerable.Range(0, runs).Select(_ => RunChild(kind, actors)).ToList();
            var cells = Enumerable.Range(0, 3).Select(column => Median(samples.Select(s => s[column]).ToList()));
            table.AppendLine(CultureInfo.InvariantCulture, $"| {kind} | {string.Join(" | ", cells)} |");
            output.WriteLine($"{kind}: {string.Join(", ", samples.Select(s => string.Join('/', s)))}");
        }

        MeasurementFile.Write(output, outDirectory, "FOOTPRINT.md", "What an idle actor costs", $"Each contender in a process of its own, {runs} runs: the managed heap added by {actors:N0} actors that never got a message, per actor (full collection before and after); then {TouchedActors:N0} more actors each handle one message, and the process's threads are counted. Median [lowest, highest].", provenance, table);
        return 0;
    }

    /// <summary>In this process: bytes per idle actor, process threads, thread-pool threads, space-separated.</summary>
    private static string Measure(ActorContenderKind kind, int actors)
    {
        var handled = 0;
        void Received() => Interlocked.Increment(ref handled);

        using var idle = ActorContenders.CreateFootprint(kind);
        var before = GC.GetTotalMemory(forceFullCollection: true);
        idle.Spawn(actors, Received);
        Thread.Sleep(Settle); // the peers start their actors asynchronously: let every actor be created and started
        var after = GC.GetTotalMemory(forceFullCollection: true);
        var bytesPerActor = (after - before) / (double)actors;
        GC.KeepAlive(idle);

        using var touched = ActorContenders.CreateFootprint(kind);
        touched.Spawn(TouchedActors, Received);
        touched.TellEach();
        if (!SpinWait.SpinUntil(() => Volatile.Read(ref handled) == TouchedActors, TimeSpan.FromSeconds(60)))
        {
            throw new TimeoutException($"{kind}: {TouchedActors - handled} of {TouchedActors} actors never handled their message.");
        }

        using var process = Process.GetCurrentProcess();
        return string.Create(CultureInfo.InvariantCulture, $"{bytesPerActor:0} {process.Threads.Count} {ThreadPool.ThreadCount}");
    }

    private static double[] RunChild(ActorContenderKind kind, int actors)
    {
        var start = BenchmarkProcess.StartInfo(["footprint", "--contender", kind.ToString(), "--actors", actors.ToString(CultureInfo.InvariantCulture)]);
        using var child = Process.Start(start) ?? throw new InvalidOperationException($"Could not start the {kind} footprint process.");
        var lines = child.StandardOutput.ReadToEnd();
        if (!child.WaitForExit(TimeSpan.FromMinutes(5)) || child.ExitCode != 0)
        {
            throw new InvalidOperationException($"The {kind} footprint process failed (exit {(child.HasExited ? child.ExitCode : -1)}): {lines}");
        }

        var last = lines.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries)[^1];
        return [.. last.Split(' ').Select(v => double.Parse(v, CultureInfo.InvariantCulture))];
    }

    private static string Median(List<double> values)
    {
        values.Sort();
        return string.Create(CultureInfo.InvariantCulture, $"{values[values.Count / 2]:0} [{values[0]:0}, {values[^1]:0}]");
    }
}
