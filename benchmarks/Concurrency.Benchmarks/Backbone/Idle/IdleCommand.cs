using System.CommandLine;
using System.Globalization;
using Concurrency.Benchmarks.HandOff;

namespace Concurrency.Benchmarks.Backbone.Idle;

/// <summary>
/// <c>-- idle [--seconds N] [--out DIR]</c>: what an idle consumer costs. For each contender it builds 1 and then 100
/// instances, hands each one message, waits until they went idle, then reads this process's CPU time over several windows
/// and prints the median share of one core with the lowest and highest window, beside a baseline with no instance at all,
/// and how many threads the process gained for 100 instances (a dedicated consumer thread each, or none on the pool).
/// Writes IDLE.md with the machine and commit (into results/runs/idle/… unless <c>--out</c> says where).
/// </summary>
public static class IdleCommand
{
    /// <summary>The scenario the idle command's measurements are filed under.</summary>
    public const string Scenario = "idle";

    private static readonly int[] Counts = [1, 100];

    private const int Windows = 3;

    /// <summary>Long enough for every contender's idle wait (spin, yield, then park) to have run out.</summary>
    private static readonly TimeSpan Settle = TimeSpan.FromSeconds(1);

    public static Command Create()
    {
        var seconds = CommonOptions.Seconds("--seconds", 2, "the length of each of the 3 windows CPU time is read over");
        var outDirectory = CommonOptions.Out("where IDLE.md goes (default: a new folder results/runs/idle/yyyy-MM-dd-HHmmss; the published one is --out results)");
        var command = new Command("idle", "What an idle consumer costs. Builds 1 and 100 of each pipe, operator and peer, hands each one message, then reads process CPU time over 3 windows of N seconds and writes IDLE.md.")
        {
            seconds, outDirectory,
        };
        command.SetAction(parse => Run(parse.GetValue(seconds), Experiment.Start(parse, outDirectory)));
        return command;
    }

    private static int Run(double seconds, Experiment experiment)
    {
        var window = TimeSpan.FromSeconds(seconds);
        var measurements = new List<Measurement>();
        var text = experiment.Header(
                "What an idle consumer costs",
                string.Create(CultureInfo.InvariantCulture, $"Process CPU time over {Windows} windows of {seconds:0.#} s each, after each instance handled one message and {Settle.TotalSeconds:0} s passed; the median window as a share of one core, [lowest, highest]."))
            .AppendLine("| idle consumers | 1 instance, % of one core | 100 instances, % of one core | threads added by 100 instances |")
            .AppendLine("|---|---:|---:|---:|")
            .AppendLine(CultureInfo.InvariantCulture, $"| none (this process's baseline) | {Format(Measure(window))} | | |");
        foreach (var contender in HandOffContenders.Idle)
        {
            var cells = Counts.Select(count => MeasureIdle(contender, count, window)).ToList();
            var row = cells.Select(c => Format(c.Shares)).Append(cells[^1].ThreadsAdded.ToString(CultureInfo.InvariantCulture)).ToList();
            text.AppendLine(CultureInfo.InvariantCulture, $"| {contender.Name} | {string.Join(" | ", row)} |");
            experiment.Output.WriteLine($"{contender.Name}: {string.Join(", ", row)}");
            measurements.Add(Measurement.Of(Scenario, contender.Name, contender.Family, string.Empty, Phase.Steady, experiment.Cores, Measurement.IdleCorePercent, cells[^1].Shares));
        }

        experiment.Write("IDLE.md", text, measurements);
        return 0;
    }

    private static (double[] Shares, int ThreadsAdded) MeasureIdle(Contender<HandOffBuild> contender, int count, TimeSpan window)
    {
        var threadsBefore = ProcessThreads();
        var handled = 0;
        var instances = Enumerable.Range(0, count).Select(_ => contender.Build.Idle!(() => Interlocked.Increment(ref handled))).ToList();
        try
        {
            if (!SpinWait.SpinUntil(() => Volatile.Read(ref handled) == count, TimeSpan.FromSeconds(30)))
            {
                throw new TimeoutException($"{contender.Name}: {count - handled} of {count} instances never handled their message.");
            }

            Thread.Sleep(Settle);
            return (Measure(window), ProcessThreads() - threadsBefore);
        }
        finally
        {
            foreach (var instance in instances)
            {
                instance.Dispose();
            }
        }
    }

    private static int ProcessThreads()
    {
        using var process = System.Diagnostics.Process.GetCurrentProcess();
        return process.Threads.Count;
    }

    /// <summary>The share of one core this process used in each of <see cref="Windows"/> windows, in %.</summary>
    private static double[] Measure(TimeSpan window)
    {
        var shares = new List<double>();
        for (var i = 0; i < Windows; i++)
        {
            var before = Environment.CpuUsage.TotalTime;
            Thread.Sleep(window);
            shares.Add(100 * (Environment.CpuUsage.TotalTime - before).TotalSeconds / window.TotalSeconds);
        }

        return [.. shares];
    }

    /// <summary>The median window with the lowest and highest.</summary>
    private static string Format(double[] shares)
    {
        var sorted = shares.Order().ToArray();
        return string.Create(CultureInfo.InvariantCulture, $"{sorted[sorted.Length / 2]:0.00}% [{sorted[0]:0.00}, {sorted[^1]:0.00}]");
    }
}
