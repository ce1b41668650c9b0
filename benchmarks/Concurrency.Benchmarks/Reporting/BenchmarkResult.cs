using System.Globalization;
using System.Text.Json;
using System.Text.RegularExpressions;

namespace Concurrency.Benchmarks.Reporting;

/// <summary>One benchmark case on one job, read from BenchmarkDotNet's full JSON export.</summary>
public sealed partial record BenchmarkResult(
    string Scenario, string Case, int Cores, double MessagesPerSecond, double? BytesPerMessage, double? WorkItemsPerMessage, double? LockContentionsPerMessage)
{
    /// <summary>Reads every benchmark with statistics from one <c>*-report-full.json</c> file.</summary>
    public static IEnumerable<BenchmarkResult> Read(JsonElement root)
    {
        foreach (var benchmark in root.GetProperty("Benchmarks").EnumerateArray())
        {
            if (!benchmark.TryGetProperty("Statistics", out var statistics) || statistics.ValueKind != JsonValueKind.Object)
            {
                continue; // a failed benchmark has no statistics; the run itself reported it
            }

            var mean = statistics.GetProperty("Mean").GetDouble();
            var display = benchmark.GetProperty("DisplayInfo").GetString() ?? string.Empty;
            var cores = CoresPattern().Match(display) is { Success: true } match ? int.Parse(match.Groups[1].Value, CultureInfo.InvariantCulture) : 0;
            var parameters = benchmark.GetProperty("Parameters").GetString() ?? string.Empty;
            yield return new BenchmarkResult(
                benchmark.GetProperty("Type").GetString() ?? "?",
                CaseName(parameters),
                cores,
                mean > 0 ? 1e9 / mean : 0,
                Memory(benchmark),
                Metric(benchmark, "CompletedWorkItemCount"),
                Metric(benchmark, "LockContentionCount"));
        }
    }

    /// <summary>Parameters as "Path=Ring, Capacity=16" minus MessageCount-style noise, read as "Ring, 16".</summary>
    private static string CaseName(string parameters)
        => parameters.Length == 0 ? "default" : string.Join(", ", parameters.Split('&', ',').Select(p => p.Split('=')[^1].Trim()));

    private static double? Memory(JsonElement benchmark)
        => benchmark.TryGetProperty("Memory", out var memory) && memory.ValueKind == JsonValueKind.Object
            && memory.TryGetProperty("BytesAllocatedPerOperation", out var bytes) && bytes.ValueKind == JsonValueKind.Number
            ? bytes.GetDouble()
            : null;

    private static double? Metric(JsonElement benchmark, string id)
    {
        if (!benchmark.TryGetProperty("Metrics", out var metrics) || metrics.ValueKind != JsonValueKind.Array)
        {
            return null;
        }

        foreach (var metric in metrics.EnumerateArray())
        {
            if (metric.TryGetProperty("Descriptor", out var descriptor)
                && descriptor.TryGetProperty("Id", out var metricId) && metricId.GetString() == id)
            {
                return metric.GetProperty("Value").GetDouble();
            }
        }

        return null;
    }

    [GeneratedRegex(@": (\d+) cores?")]
    private static partial Regex CoresPattern();
}
