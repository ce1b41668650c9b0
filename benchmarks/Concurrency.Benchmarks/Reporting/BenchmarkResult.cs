using System.Globalization;
using System.Text.Json;
using System.Text.RegularExpressions;

namespace Concurrency.Benchmarks.Reporting;

/// <summary>
/// One benchmark case on one job, read from BenchmarkDotNet's full JSON export. <see cref="Spread"/> is the standard
/// deviation over the mean of the iterations' times, so a reader sees which numbers a busy machine shook.
/// </summary>
public sealed partial record BenchmarkResult(
    string Scenario,
    string Case,
    int Cores,
    double MessagesPerSecond,
    double Spread,
    double? BytesPerMessage,
    double? WorkItemsPerMessage,
    double? LockContentionsPerMessage)
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
            var deviation = statistics.GetProperty("StandardDeviation").GetDouble();
            var display = benchmark.GetProperty("DisplayInfo").GetString() ?? string.Empty;
            var cores = CoresPattern().Match(display) is { Success: true } match ? int.Parse(match.Groups[1].Value, CultureInfo.InvariantCulture) : 0;
            yield return new BenchmarkResult(
                benchmark.GetProperty("Type").GetString() ?? "?",
                CaseName(benchmark.GetProperty("FullName").GetString() ?? string.Empty),
                cores,
                mean > 0 ? 1e9 / mean : 0,
                mean > 0 ? deviation / mean : 0,
                Memory(benchmark),
                Metric(benchmark, "CompletedWorkItemCount"),
                Metric(benchmark, "LockContentionCount"));
        }
    }

    /// <summary>
    /// The case from the full name, "Ns.Type.Method(Kind: Ring, Capacity: 16)" read as "Ring, Capacity=16": the first
    /// parameter names the contender, the rest say where it was measured. The full name, unlike the "Parameters" field,
    /// never shortens a long value.
    /// </summary>
    private static string CaseName(string fullName)
    {
        var open = fullName.IndexOf('(', StringComparison.Ordinal);
        if (open < 0 || !fullName.EndsWith(')'))
        {
            return "default";
        }

        var parameters = fullName[(open + 1)..^1].Split(", ").Select(p => p.Split(": ", 2)).ToList();
        return string.Join(", ", parameters.Select((p, i) => i == 0 || p.Length < 2 ? p[^1] : $"{p[0]}={p[1]}"));
    }

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
