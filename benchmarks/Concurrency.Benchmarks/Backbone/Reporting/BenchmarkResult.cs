using System.Globalization;
using System.Text.Json;
using System.Text.RegularExpressions;

namespace Concurrency.Benchmarks.Backbone.Reporting;

/// <summary>
/// One benchmark case on one job, read from BenchmarkDotNet's full JSON export: the msg/s of every measured iteration
/// (the raw "Workload/Actual" measurements, grouped by launch) and the case's side data.
/// </summary>
/// <param name="Scenario">The benchmark class, e.g. HeadlineBenchmarks.</param>
/// <param name="Benchmark">BenchmarkDotNet's full name of the case, which the CPU side file is keyed by.</param>
/// <param name="Contender">The value of the parameter naming the contender (Path, Case, Kind or Contender).</param>
/// <param name="Parameters">
/// The other parameters, as "Name=Value", in BenchmarkDotNet's order; a game (the Game parameter) by its name alone, the name
/// the plain program gives the same game ("ring N=1,000 M=1,000, all tokens at once").
/// </param>
/// <param name="Job">The job's id, e.g. "2 cores".</param>
/// <param name="Cores">The job's core count, or 0 when its id names none.</param>
/// <param name="Launches">Messages per second of each measured iteration, per launch.</param>
/// <param name="ShortestIterationMilliseconds">The shortest measured iteration, which should not be under 100 ms.</param>
/// <param name="CpuNanosecondsPerMessage">Process CPU per message over the measured iterations, launches pooled.</param>
public sealed partial record BenchmarkResult(
    string Scenario,
    string Benchmark,
    string Contender,
    IReadOnlyList<string> Parameters,
    string Job,
    int Cores,
    IReadOnlyList<IReadOnlyList<double>> Launches,
    double ShortestIterationMilliseconds,
    double? CpuNanosecondsPerMessage,
    double? BytesPerMessage,
    double? WorkItemsPerMessage,
    double? LockContentionsPerMessage)
{
    private static readonly string[] ContenderParameters = ["Path", "Case", "Kind", "Contender"];
    private const string GameParameter = "Game";
    private Estimate? _throughput; // computed on first use: a bootstrap is cheap, but the report asks many times

    /// <summary>Gets the row label: the contender, then the other parameters.</summary>
    public string Label => string.Join(", ", [Contender, .. Parameters]);

    /// <summary>Gets the other parameters as one string, to match a case with its peer under the same conditions.</summary>
    public string Conditions => string.Join(", ", Parameters);

    /// <summary>Gets how many measured iterations there are, over every launch.</summary>
    public int Samples => Launches.Sum(l => l.Count);

    /// <summary>Gets the median msg/s and its interval (computed once).</summary>
    public Estimate Throughput => _throughput ??= Bootstrap.Median(Launches);

    /// <summary>Reads every benchmark with measurements from one <c>*-report-full.json</c> file.</summary>
    public static IEnumerable<BenchmarkResult> Read(JsonElement root, IReadOnlyList<CpuSample> cpu)
    {
        foreach (var benchmark in root.GetProperty("Benchmarks").EnumerateArray())
        {
            var measured = Measured(benchmark);
            if (measured.Count == 0)
            {
                continue; // a failed benchmark has no measurements; the run itself reported it
            }

            var fullName = benchmark.GetProperty("FullName").GetString() ?? string.Empty;
            var display = benchmark.GetProperty("DisplayInfo").GetString() ?? string.Empty;
            var job = JobPattern().Match(display) is { Success: true } match ? match.Groups[1].Value : "?";
            var cores = CoresPattern().Match(job) is { Success: true } count ? int.Parse(count.Groups[1].Value, CultureInfo.InvariantCulture) : 0;
            var parameters = ParseParameters(fullName);
            var contender = parameters.FirstOrDefault(p => ContenderParameters.Contains(p.Name));
            contender = contender.Name is null && parameters.Count > 0 ? parameters[0] : contender;
            yield return new BenchmarkResult(
                benchmark.GetProperty("Type").GetString() ?? "?",
                fullName,
                contender.Value ?? benchmark.GetProperty("Method").GetString() ?? "?",
                [.. parameters.Where(p => p != contender).Select(p => p.Name == GameParameter ? p.Value : $"{p.Name}={p.Value}")],
                job,
                cores,
                [.. measured.GroupBy(m => m.Launch).OrderBy(g => g.Key).Select(g => (IReadOnlyList<double>)[.. g.Select(m => m.Operations * 1e9 / m.Nanoseconds)])],
                measured.Min(m => m.Nanoseconds) / 1e6,
                CpuSample.PerMessage(cpu.Where(s => s.Benchmark == fullName && s.Job == job)),
                Memory(benchmark),
                Metric(benchmark, "CompletedWorkItemCount"),
                Metric(benchmark, "LockContentionCount"));
        }
    }

    /// <summary>
    /// The parameters from the full name, "Ns.Type.Method(Kind: Ring, Case: \"Channel 2->1\")": the full name, unlike the
    /// "Parameters" field, never shortens a long value. A value that is not a string is written unquoted, as its type's
    /// name for it, which may hold ", " itself ("Game: ring N=1,000 M=1,000, all tokens at once"): it runs up to the next
    /// ", Name: ".
    /// </summary>
    public static IReadOnlyList<(string Name, string Value)> ParseParameters(string fullName)
    {
        var open = fullName.IndexOf('(', StringComparison.Ordinal);
        if (open < 0 || !fullName.EndsWith(')'))
        {
            return [];
        }

        var parameters = new List<(string, string)>();
        var text = fullName[(open + 1)..^1];
        var at = 0;
        while (at < text.Length)
        {
            var colon = text.IndexOf(": ", at, StringComparison.Ordinal);
            if (colon < 0)
            {
                break;
            }

            var name = text[at..colon].Trim();
            var start = colon + 2;
            int end;
            string value;
            if (start < text.Length && text[start] == '"')
            {
                end = text.IndexOf('"', start + 1);
                end = end < 0 ? text.Length : end + 1;
                value = text[(start + 1)..Math.Max(start + 1, end - 1)];
            }
            else
            {
                end = NextParameter().Match(text, start) is { Success: true } following ? following.Index : text.Length;
                value = text[start..end];
            }

            parameters.Add((name, value));
            at = text.IndexOf(", ", end, StringComparison.Ordinal) is var next and >= 0 ? next + 2 : text.Length;
        }

        return parameters;
    }

    /// <summary>The raw measured iterations (Workload/Actual, before BenchmarkDotNet subtracts its overhead estimate).</summary>
    private static List<(int Launch, double Operations, double Nanoseconds)> Measured(JsonElement benchmark)
    {
        if (!benchmark.TryGetProperty("Measurements", out var measurements) || measurements.ValueKind != JsonValueKind.Array)
        {
            return [];
        }

        return [.. measurements.EnumerateArray()
            .Where(m => m.GetProperty("IterationMode").GetString() == "Workload" && m.GetProperty("IterationStage").GetString() == "Actual")
            .Select(m => (m.GetProperty("LaunchIndex").GetInt32(), m.GetProperty("Operations").GetDouble(), m.GetProperty("Nanoseconds").GetDouble()))
            .Where(m => m.Item3 > 0)];
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

    [GeneratedRegex(@", [A-Za-z_][A-Za-z0-9_]*: ")]
    private static partial Regex NextParameter();

    [GeneratedRegex(@"^[^:]+: (.+?)\(")]
    private static partial Regex JobPattern();

    [GeneratedRegex(@"^(\d+) cores?$")]
    private static partial Regex CoresPattern();
}
