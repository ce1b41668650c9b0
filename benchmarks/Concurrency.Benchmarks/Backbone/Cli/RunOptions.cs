using BenchmarkDotNet.Jobs;

namespace Concurrency.Benchmarks.Backbone.Cli;

/// <summary>
/// A benchmark run as the command line asked for it: our own options parsed out, the rest left for BenchmarkDotNet.
/// </summary>
/// <param name="Cores">The core counts to run at, one job each.</param>
/// <param name="BaseJob">The measurement settings every core count's job starts from.</param>
/// <param name="BenchmarkDotNetArguments">Everything else, passed through.</param>
/// <param name="CommandLine">The arguments as given, which the run's provenance records so the report can print the exact command.</param>
public sealed record RunOptions(IReadOnlyList<int> Cores, Job BaseJob, IReadOnlyList<string> BenchmarkDotNetArguments, IReadOnlyList<string> CommandLine)
{
    /// <summary>Gets whether BenchmarkDotNet will run benchmarks (rather than list them or print its information).</summary>
    public bool Runs => !BenchmarkDotNetArguments.Any(a => a is "--list" or "--info" or "--version");
}
