using BenchmarkDotNet.Reports;

namespace Concurrency.Benchmarks.Backbone.Runs;

/// <summary>
/// The names of one summary's files in the results directory: BenchmarkDotNet's "{prefix}-report-full.json" and our side
/// files beside it, "{prefix}-provenance.json" and "{prefix}-cpu.json".
/// </summary>
public static class ResultFiles
{
    public const string FullJsonSuffix = "-report-full.json";
    public const string ProvenanceSuffix = "-provenance.json";
    public const string CpuSuffix = "-cpu.json";

    /// <summary>
    /// The prefix BenchmarkDotNet gave this summary's exports: the benchmark type's full name when the summary holds one
    /// type (our summaries are per type), otherwise the summary's title.
    /// </summary>
    public static string Prefix(Summary summary)
    {
        var types = summary.BenchmarksCases.Select(c => c.Descriptor.Type).Distinct().ToList();
        if (types is [var type] && File.Exists(Path.Combine(summary.ResultsDirectoryPath, type.FullName + FullJsonSuffix)))
        {
            return type.FullName!;
        }

        return summary.Title;
    }

    /// <summary>A side file's path from its results file's path: "X-report-full.json" → "X{suffix}".</summary>
    public static string SideFile(string fullJsonPath, string suffix)
        => fullJsonPath.EndsWith(FullJsonSuffix, StringComparison.Ordinal)
            ? fullJsonPath[..^FullJsonSuffix.Length] + suffix
            : fullJsonPath + suffix;
}
