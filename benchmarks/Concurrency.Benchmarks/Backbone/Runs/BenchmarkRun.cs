using BenchmarkDotNet.Exporters;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;

namespace Concurrency.Benchmarks.Backbone.Runs;

/// <summary>
/// One run of BenchmarkDotNet with our jobs, then our side files beside each summary's results: provenance, and the CPU
/// samples the benchmark processes left in a per-run directory (named to them through an inherited environment variable).
/// Fails (non-zero) when any benchmark failed or nothing matched.
/// </summary>
public static class BenchmarkRun
{
    public static int Execute(RunOptions options, TextWriter output, TextWriter error)
    {
        var arguments = options.BenchmarkDotNetArguments.ToArray();
        var samples = Path.GetFullPath(Path.Combine(ArtifactsDirectory(arguments), "cpu-samples", $"{DateTime.UtcNow:yyyyMMdd-HHmmss}-{Environment.ProcessId}"));
        Environment.SetEnvironmentVariable(CpuSampleStore.DirectoryVariable, samples);
        var provenance = RunProvenance.Capture(options.CommandLine);

        var summaries = BenchmarkSwitcher.FromAssembly(typeof(Program).Assembly)
            .Run(arguments, BenchmarkConfig.Create(options.Cores, options.BaseJob, samples))
            .ToList();

        var collected = CpuSampleStore.ReadAll(samples);
        foreach (var summary in summaries.Where(s => Directory.Exists(s.ResultsDirectoryPath)))
        {
            WriteSideFiles(summary, provenance with { FinishedUtc = DateTime.UtcNow }, collected);
        }

        if (Directory.Exists(samples))
        {
            Directory.Delete(samples, recursive: true); // every sample now sits in a side file beside its summary
        }

        if (options.Runs && summaries.Count == 0)
        {
            error.WriteLine($"No benchmark ran: nothing matched '{string.Join(' ', arguments)}'.");
            return 1;
        }

        // A case with no report at all (its build failed) counts as failed too.
        var failed = summaries
            .Where(s => s.HasCriticalValidationErrors || s.Reports.Length < s.BenchmarksCases.Length || s.Reports.Any(r => !r.Success))
            .ToList();
        foreach (var summary in failed)
        {
            error.WriteLine($"FAILED: {summary.Title}: {string.Join(", ", summary.Reports.Where(r => !r.Success).Select(r => r.BenchmarkCase.DisplayInfo))}");
        }

        if (failed.Count == 0 && summaries.Count > 0)
        {
            output.WriteLine($"Results and side files are in {summaries[0].ResultsDirectoryPath}; turn them into a report with: -- report");
        }

        return failed.Count == 0 ? 0 : 1;
    }

    private static void WriteSideFiles(Summary summary, RunProvenance provenance, IReadOnlyList<CpuSample> samples)
    {
        var prefix = Path.Combine(summary.ResultsDirectoryPath, ResultFiles.Prefix(summary));
        provenance.Write(prefix + ResultFiles.ProvenanceSuffix);
        var mine = summary.BenchmarksCases
            .SelectMany(c => samples
                .Where(s => s.Case == CaseKey.Of(c) && s.Job == c.Job.Id)
                .Select(s => s with { Benchmark = FullNameProvider.GetBenchmarkName(c) }))
            .OrderBy(s => s.Benchmark, StringComparer.Ordinal).ThenBy(s => s.Job, StringComparer.Ordinal).ThenBy(s => s.Launch);
        CpuSampleStore.WriteSideFile(prefix + ResultFiles.CpuSuffix, mine);
    }

    /// <summary>BenchmarkDotNet's artifacts directory: its <c>--artifacts</c> option, or its default under the current directory.</summary>
    private static string ArtifactsDirectory(string[] arguments)
    {
        const string option = "--artifacts";
        var at = Array.IndexOf(arguments, option);
        if (at >= 0 && at + 1 < arguments.Length)
        {
            return arguments[at + 1];
        }

        return arguments.FirstOrDefault(a => a.StartsWith(option + "=", StringComparison.Ordinal))?[(option.Length + 1)..] ?? "BenchmarkDotNet.Artifacts";
    }
}
