using System.Globalization;
using Concurrency.Benchmarks.Config;

namespace Concurrency.Benchmarks.Cli;

/// <summary>
/// Parses the benchmark command line: <c>--cores LIST</c>, <c>--job NAME</c> (also BenchmarkDotNet's <c>-j</c>, which would
/// otherwise add a job beside ours) and <c>--help</c> are ours; everything else goes to BenchmarkDotNet. With no filter of its own the run selects the headline scenario, so a bare run is unattended.
/// </summary>
public static class RunArguments
{
    public const string DefaultFilter = "*HeadlineBenchmarks*";

    /// <exception cref="UsageException">An option of ours has a missing or bad value.</exception>
    public static RunOptions Parse(IReadOnlyList<string> args, int machineCores)
    {
        var rest = new List<string>();
        string? cores = null;
        string? job = null;
        var help = false;
        for (var i = 0; i < args.Count; i++)
        {
            switch (args[i])
            {
                case "--cores":
                    cores = cores is null ? Value(args, ref i, "--cores", "a list of core counts, for example --cores 1,2,4") : throw new UsageException("--cores: given twice.");
                    break;
                case "--job" or "-j":
                    job = job is null ? Value(args, ref i, "--job", $"one of {string.Join(", ", MeasurementJobs.Names)}") : throw new UsageException("--job: given twice.");
                    break;
                case "--help" or "-h" or "-?":
                    help = true;
                    break;
                default:
                    rest.Add(args[i]);
                    break;
            }
        }

        var baseJob = job is null
            ? MeasurementJobs.SteadyState
            : MeasurementJobs.Named(job) ?? throw new UsageException($"--job: '{job}' is not one of {string.Join(", ", MeasurementJobs.Names)}.");
        var selects = rest.Any(a => a is "--filter" or "-f" or "--allCategories" or "--anyCategories");
        var options = new RunOptions(ParseCores(cores, machineCores), baseJob, rest, help, [.. args]);
        return selects || !options.Runs ? options : options with { BenchmarkDotNetArguments = [.. rest, "--filter", DefaultFilter] };
    }

    /// <summary>Core counts from "1,2,4", capped at this machine's count (and the 62 an affinity mask can hold); 1 and all cores when not given.</summary>
    /// <exception cref="UsageException">An entry is not a whole number of at least 1.</exception>
    public static IReadOnlyList<int> ParseCores(string? list, int machineCores)
    {
        if (list is null)
        {
            return [.. new[] { 1, Math.Min(machineCores, 62) }.Distinct()];
        }

        var requested = new List<int>();
        foreach (var entry in list.Split(',', StringSplitOptions.TrimEntries))
        {
            if (!int.TryParse(entry, NumberStyles.None, CultureInfo.InvariantCulture, out var count))
            {
                throw new UsageException($"--cores: '{entry}' is not a whole number; give core counts such as --cores 1,2,4.");
            }

            if (count < 1)
            {
                throw new UsageException($"--cores: {count} is not a core count; each must be at least 1.");
            }

            requested.Add(Math.Min(count, Math.Min(machineCores, 62)));
        }

        return [.. requested.Distinct().Order()];
    }

    private static string Value(IReadOnlyList<string> args, ref int i, string option, string expected)
    {
        if (i + 1 >= args.Count || args[i + 1].StartsWith('-'))
        {
            throw new UsageException($"{option} needs {expected}.");
        }

        return args[++i];
    }
}
