using BenchmarkDotNet.Running;
using Concurrency.Benchmarks.Cli;
using Concurrency.Benchmarks.Reporting;
using Concurrency.Benchmarks.Runs;

namespace Concurrency.Benchmarks;

/// <summary>
/// <c>dotnet run -c Release --project benchmarks/Concurrency.Benchmarks [-- --cores 1,2,4 --filter *Topology*]</c> runs
/// benchmarks (the headline set when no filter is given, never an interactive menu) and exits non-zero if any failed;
/// <c>-- report</c> turns the results into results/REPORT.md, results/README-table.md and charts. <c>--help</c> says more.
/// </summary>
public static class Program
{
    public static int Main(string[] args) => Run(args, Console.Out, Console.Error);

    /// <summary>The whole program with its output streams given, so tests can read what it printed and its exit code.</summary>
    public static int Run(string[] args, TextWriter output, TextWriter error)
    {
        try
        {
            if (args is ["report", .. var reportArguments])
            {
                var report = ReportOptions.Parse(reportArguments);
                if (report.Help)
                {
                    output.Write(HelpText.Run);
                    return 0;
                }

                return ReportCommand.Run(report, output, error);
            }

            if (args is ["loop", .. var loopArguments])
            {
                return PlainLoop.LoopCommand.Run(loopArguments, output);
            }

            if (args is ["footprint", .. var footprintArguments])
            {
                return Actors.FootprintCommand.Run(footprintArguments, output);
            }

            if (args is ["lab", .. var labArguments])
            {
                return Lab.LabCommand.Run(labArguments, output, error);
            }

            if (args is ["serve", .. var serveArguments])
            {
                return Grpc.ServeCommand.Run(serveArguments, output);
            }

            if (args is ["idle", .. var idleArguments])
            {
                return Idle.IdleCommand.Run(idleArguments, output);
            }

            var options = RunArguments.Parse(args, Environment.ProcessorCount);
            if (options.Help)
            {
                output.Write(HelpText.Run);
                output.WriteLine("BenchmarkDotNet's options:");
                output.Flush();
                BenchmarkSwitcher.FromAssembly(typeof(Program).Assembly).Run(["--help"]);
                return 0;
            }

            return BenchmarkRun.Execute(options, output, error);
        }
        catch (UsageException usage)
        {
            error.WriteLine(usage.Message);
            return UsageException.ExitCode;
        }
    }
}
