using System.Text.Json;

namespace Concurrency.Benchmarks.Backbone.Cpu;

/// <summary>
/// Where CPU samples live. During a run each benchmark process writes one file into the directory the host names in
/// <see cref="DirectoryVariable"/>; after each summary the host collects them, numbered by launch, into one side file
/// beside BenchmarkDotNet's results ("…-cpu.json"), which the report reads.
/// </summary>
public static class CpuSampleStore
{
    /// <summary>The environment variable (set by the host, inherited by benchmark processes) naming the sample directory.</summary>
    public const string DirectoryVariable = "CONCURRENCY_BENCH_CPU_DIR";

    /// <summary>The environment variable each job sets to its own id, so a benchmark process can say which job it ran.</summary>
    public const string JobVariable = "CONCURRENCY_BENCH_JOB";

    private static readonly JsonSerializerOptions Indented = new() { WriteIndented = true };

    public static void Write(string directory, CpuSample sample)
    {
        Directory.CreateDirectory(directory);
        var path = Path.Combine(directory, $"{Guid.NewGuid():N}.json");
        File.WriteAllText(path, JsonSerializer.Serialize(sample));
    }

    /// <summary>Every sample in <paramref name="directory"/>, launches numbered per case and job by start time.</summary>
    public static IReadOnlyList<CpuSample> ReadAll(string directory)
    {
        if (!Directory.Exists(directory))
        {
            return [];
        }

        var samples = Directory.GetFiles(directory, "*.json")
            .Select(f => JsonSerializer.Deserialize<CpuSample>(File.ReadAllText(f)))
            .OfType<CpuSample>();
        return [.. samples
            .GroupBy(s => (s.Case, s.Job))
            .SelectMany(g => g.OrderBy(s => s.StartedUtc).ThenBy(s => s.ProcessId).Select((s, i) => s with { Launch = i + 1 }))];
    }

    /// <summary>Writes the side file that sits beside one summary's results.</summary>
    public static void WriteSideFile(string path, IEnumerable<CpuSample> samples)
        => File.WriteAllText(path, JsonSerializer.Serialize(samples.ToList(), Indented));

    public static IReadOnlyList<CpuSample> ReadSideFile(string path)
        => File.Exists(path) ? JsonSerializer.Deserialize<List<CpuSample>>(File.ReadAllText(path)) ?? [] : [];
}
