using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Diagnosers;
using BenchmarkDotNet.Exporters;
using BenchmarkDotNet.Exporters.Csv;
using BenchmarkDotNet.Exporters.Json;
using BenchmarkDotNet.Jobs;
using BenchmarkDotNet.Loggers;
using BenchmarkDotNet.Reports;

namespace Concurrency.Benchmarks.Config;

/// <summary>
/// One job per core count, each pinned by process affinity and told its processor count, so the same benchmark gives a
/// curve across cores. One invocation per iteration: a fresh path is built before each, outside the measurement. Few
/// iterations, because each moves a million messages and the unattended headline run must finish in ten minutes on 2 cores.
/// </summary>
public static class BenchmarkConfig
{
    public static IConfig Create(IReadOnlyList<int> cores)
    {
        var config = ManualConfig.CreateEmpty()
            .AddColumnProvider(DefaultColumnProviders.Instance)
            .AddColumn(new ThroughputColumn(), new PercentOfLimitColumn("DirectCall"), new PercentOfLimitColumn("RawRing"))
            .AddLogger(ConsoleLogger.Default)
            .AddExporter(MarkdownExporter.GitHub, CsvExporter.Default, JsonExporter.Full)
            .AddDiagnoser(MemoryDiagnoser.Default, ThreadingDiagnoser.Default)
            .WithOption(ConfigOptions.JoinSummary, false)
            .WithSummaryStyle(SummaryStyle.Default.WithMaxParameterColumnWidth(40)); // case names such as "ChannelBounded 1->4 work-sharing" stay whole

        foreach (var count in cores)
        {
            config.AddJob(Job.Default
                .WithId(JobId(count))
                .WithAffinity(checked((nint)((1L << count) - 1)))
                .WithEnvironmentVariables(new EnvironmentVariable("DOTNET_PROCESSOR_COUNT", count.ToString(System.Globalization.CultureInfo.InvariantCulture)))
                .WithInvocationCount(1)
                .WithUnrollFactor(1)
                .WithLaunchCount(1)
                .WithWarmupCount(3)
                .WithIterationCount(10));
        }

        return config;
    }

    public static string JobId(int cores) => cores == 1 ? "1 core" : $"{cores} cores";

    /// <summary>Core counts from "1,2,4,8", capped at this machine's count; 1 and all cores when not given.</summary>
    public static IReadOnlyList<int> ParseCores(string? list)
    {
        var machine = Environment.ProcessorCount;
        var requested = list is null
            ? [1, machine]
            : list.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries)
                .Select(c => int.Parse(c, System.Globalization.CultureInfo.InvariantCulture));
        var cores = requested.Where(c => c >= 1).Select(c => Math.Min(c, Math.Min(machine, 62))).Distinct().Order().ToList();
        if (cores.Count == 0)
        {
            throw new ArgumentException($"--cores '{list}' names no core count of at least 1.", nameof(list));
        }

        return cores;
    }
}
