using BenchmarkDotNet.Running;
using Concurrency.Benchmarks.Config;
using Concurrency.Benchmarks.Reporting;

namespace Concurrency.Benchmarks;

/// <summary>
/// <c>dotnet run -c Release --project benchmarks/Concurrency.Benchmarks [-- --cores 1,2,4 --filter *Topology*]</c> runs
/// benchmarks (the headline set when no filter is given, never an interactive menu) and exits non-zero if any failed;
/// <c>-- report</c> turns the JSON results into results/REPORT.md and charts.
/// </summary>
public static class Program
{
    public static int Main(string[] args)
    {
        if (args.Length > 0 && args[0] == "report")
        {
            return ReportCommand.Run(args[1..]);
        }

        var rest = new List<string>(args);
        string? cores = null;
        var at = rest.IndexOf("--cores");
        if (at >= 0)
        {
            if (at + 1 >= rest.Count)
            {
                Console.Error.WriteLine("--cores needs a list, for example --cores 1,2,4,8");
                return 2;
            }

            cores = rest[at + 1];
            rest.RemoveRange(at, 2);
        }

        var selects = rest.Any(a => a is "--filter" or "-f" or "--allCategories" or "--anyCategories");
        var runs = !rest.Any(a => a is "--list" or "--help" or "-h" or "--info" or "--version");
        if (!selects && runs)
        {
            rest.AddRange(["--filter", "*HeadlineBenchmarks*"]);
        }

        var summaries = BenchmarkSwitcher.FromAssembly(typeof(Program).Assembly)
            .Run([.. rest], BenchmarkConfig.Create(BenchmarkConfig.ParseCores(cores)))
            .ToList();
        if (runs && summaries.Count == 0)
        {
            Console.Error.WriteLine($"No benchmark ran: nothing matched '{string.Join(' ', rest)}'.");
            return 1;
        }

        // A case with no report at all (its build failed) counts as failed too.
        var failed = summaries
            .Where(s => s.HasCriticalValidationErrors || s.Reports.Length < s.BenchmarksCases.Length || s.Reports.Any(r => !r.Success))
            .ToList();
        foreach (var summary in failed)
        {
            Console.Error.WriteLine($"FAILED: {summary.Title}: {string.Join(", ", summary.Reports.Where(r => !r.Success).Select(r => r.BenchmarkCase.DisplayInfo))}");
        }

        return failed.Count == 0 ? 0 : 1;
    }
}
