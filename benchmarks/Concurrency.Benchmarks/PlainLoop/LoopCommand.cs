using System.Diagnostics;
using System.Globalization;
using System.Text;
using Concurrency.Benchmarks.Cli;
using Concurrency.Benchmarks.Harness;
using Concurrency.Benchmarks.Runs;
using Concurrency.Benchmarks.Scenarios;

namespace Concurrency.Benchmarks.PlainLoop;

/// <summary>
/// <c>-- loop [--messages N] [--runs N] [--out DIR]</c>: the headline contenders measured the plain way, outside
/// BenchmarkDotNet, as a user would try them: one producer thread posts N messages (10,000,000 by default) in one loop, the
/// run ends when the consumer has handled the last one, every run is verified; two warm-up runs, then the median of the
/// runs with the lowest and highest. Run it under <c>taskset -c 0</c> for one core. Writes LOOP-&lt;cores&gt;.md.
/// </summary>
public static class LoopCommand
{
    private const int WarmupRuns = 2;

    public static int Run(IReadOnlyList<string> args, TextWriter output)
    {
        var messages = 10_000_000;
        var runs = 5;
        var outDirectory = "results";
        for (var i = 0; i < args.Count; i++)
        {
            switch (args[i])
            {
                case "--messages" when i + 1 < args.Count && int.TryParse(args[i + 1], CultureInfo.InvariantCulture, out var m) && m > 0:
                    messages = m;
                    i++;
                    break;
                case "--runs" when i + 1 < args.Count && int.TryParse(args[i + 1], CultureInfo.InvariantCulture, out var r) && r > 0:
                    runs = r;
                    i++;
                    break;
                case "--out" when i + 1 < args.Count:
                    outDirectory = args[++i];
                    break;
                default:
                    throw new UsageException($"loop: unknown or incomplete option '{args[i]}'; see --help.");
            }
        }

        var provenance = RunProvenance.Capture(["loop", .. args]);
        var block = Message.Preallocate(messages);
        var results = new List<(HeadlinePath Path, LoopResult Result)>();
        foreach (var path in Enum.GetValues<HeadlinePath>())
        {
            var result = Measure(path, block, runs);
            results.Add((path, result));
            output.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{path}: {result.Rate}"));
        }

        var cores = Environment.ProcessorCount;
        var rx = results.Single(r => r.Path == HeadlinePath.RxObserveOnTaskPool).Result;
        var dataflow = results.Single(r => r.Path == HeadlinePath.DataflowActionBlock).Result;
        var text = new StringBuilder()
            .AppendLine(CultureInfo.InvariantCulture, $"# Plain loop, {cores} {(cores == 1 ? "core" : "cores")}")
            .AppendLine()
            .AppendLine(CultureInfo.InvariantCulture, $"One producer thread posts {messages:N0} preallocated messages in one loop; a run ends when the consumer handled the last one, and is verified (count, checksum, order). {WarmupRuns} warm-up runs, then the median of {runs} runs [lowest, highest]. CPU is this process's CPU time over the run ÷ messages. Ratios divide medians; the bracket divides the extremes (lowest ÷ highest, highest ÷ lowest).")
            .AppendLine()
            .AppendLine(CultureInfo.InvariantCulture, $"Machine: {provenance.Cpu}, {provenance.LogicalCores} logical cores ({cores} usable by this process), {provenance.Os}, {provenance.Runtime}. Commit {provenance.CommitLabel}.")
            .AppendLine(CultureInfo.InvariantCulture, $"Command: `{(cores == 1 ? "taskset -c 0 " : string.Empty)}dotnet run -c Release --project benchmarks/Concurrency.Benchmarks -- {provenance.Arguments}`")
            .AppendLine()
            .AppendLine("| path | msg/s | CPU ns/msg | × Rx ObserveOn (TaskPool) | × Dataflow ActionBlock |")
            .AppendLine("|---|---:|---:|---:|---:|");
        foreach (var (path, result) in results)
        {
            text.AppendLine(CultureInfo.InvariantCulture, $"| {path} | {result.Rate} | {result.CpuPerMessage:0.0} | {result.Times(rx)} | {result.Times(dataflow)} |");
        }

        Directory.CreateDirectory(outDirectory);
        var file = Path.Combine(outDirectory, string.Create(CultureInfo.InvariantCulture, $"LOOP-{cores}.md"));
        File.WriteAllText(file, text.ToString());
        output.WriteLine(text.ToString());
        output.WriteLine($"Wrote {file}.");
        return 0;
    }

    private static LoopResult Measure(HeadlinePath contender, Message[] block, int runs)
    {
        var path = HeadlineBenchmarks.Create(contender);
        try
        {
            var rates = new List<double>();
            var cpu = new List<double>();
            for (var run = 0; run < WarmupRuns + runs; run++)
            {
                path.Consumers.Arm(block.Length);
                var cpuBefore = Environment.CpuUsage.TotalTime;
                var watch = Stopwatch.StartNew();
                path.Post(block);
                path.Consumers.WaitForBlock($"Loop {contender}");
                watch.Stop();
                var cpuUsed = Environment.CpuUsage.TotalTime - cpuBefore;
                path.Consumers.VerifyBlock($"Loop {contender}");
                if (run >= WarmupRuns)
                {
                    rates.Add(block.Length / watch.Elapsed.TotalSeconds);
                    cpu.Add(cpuUsed.TotalNanoseconds / block.Length);
                }
            }

            path.Complete();
            rates.Sort();
            cpu.Sort();
            return new LoopResult(rates[rates.Count / 2], rates[0], rates[^1], cpu[cpu.Count / 2]);
        }
        finally
        {
            path.Dispose();
        }
    }
}
