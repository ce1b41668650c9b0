using System.CommandLine;
using BenchmarkDotNet.Jobs;

namespace Concurrency.Benchmarks.Backbone.Cli;

/// <summary>
/// The benchmark run's command line (the root command): <c>--cores LIST</c>, <c>--job NAME</c> (also BenchmarkDotNet's
/// <c>-j</c>, which would otherwise add a job beside ours) and <c>--help</c> are ours; every other token goes to
/// BenchmarkDotNet. With no filter of its own the run selects the headline scenario, so a bare run is unattended.
/// </summary>
public static class RunArguments
{
    public const string DefaultFilter = "*HeadlineBenchmarks*";

    /// <summary>The run's own options, for <see cref="Commands"/> to add to the root and <see cref="From"/> to read.</summary>
    internal sealed class Symbols(int machineCores)
    {
        public Option<IReadOnlyList<int>?> Cores { get; } = CommonOptions.Cores(
            machineCores,
            $"core counts to run at, one job each, e.g. --cores 1,2,4 (default: 1 and all; at most this machine's {Math.Min(machineCores, CommonOptions.MostCores)})");

        public Option<Job?> Job { get; } = new("--job", "-j")
        {
            HelpName = "NAME",
            Description = "measurement settings for every core count: default (steady state, 4 launches x 15 iterations of ~250 ms, 6 warm-up), dry (one quick pass, to check a change), short, medium, long",
            CustomParser = result =>
            {
                if (result.Tokens is not [var token])
                {
                    return null;
                }

                var name = token.Value;
                var job = MeasurementJobs.Named(name);
                if (job is null)
                {
                    result.AddError($"--job: '{name}' is not one of {string.Join(", ", MeasurementJobs.Names)}.");
                }

                return job;
            },
        };
    }

    /// <summary>The run the root command was asked for.</summary>
    internal static RunOptions From(ParseResult parse, Symbols symbols, int machineCores)
    {
        var rest = parse.UnmatchedTokens;
        var options = new RunOptions(
            parse.GetValue(symbols.Cores) ?? CommonOptions.ParseCores(null, machineCores),
            parse.GetValue(symbols.Job) ?? MeasurementJobs.SteadyState,
            rest,
            Commands.Arguments(parse));
        var selects = rest.Any(a => a is "--filter" or "-f" or "--allCategories" or "--anyCategories");
        return selects || !options.Runs ? options : options with { BenchmarkDotNetArguments = [.. rest, "--filter", DefaultFilter] };
    }
}
