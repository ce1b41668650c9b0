using System.Globalization;
using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Diagnosers;
using BenchmarkDotNet.Exporters;
using BenchmarkDotNet.Exporters.Csv;
using BenchmarkDotNet.Exporters.Json;
using BenchmarkDotNet.Jobs;
using BenchmarkDotNet.Loggers;
using BenchmarkDotNet.Reports;

namespace Concurrency.Benchmarks.Backbone.Config;

/// <summary>
/// One job per core count, each pinned by process affinity and told its processor count, so the same benchmark gives a
/// curve across cores. Each case keeps its path alive and moves one block per invocation (see PathBenchmark).
/// </summary>
/// <remarks>
/// Every job also sets <c>DOTNET_TC_DelaySingleProcMultiplier=1</c>. With one processor the runtime waits ten times longer
/// (1 s instead of 100 ms) without new tier-0 compilation before it promotes hot methods to tier 1, and each measured
/// iteration's boundary compiles something new: on the 1-core job, actor ping-pong ran in tier-0 code for 3 s in a plain
/// loop and through all 15 measured iterations of every launch under BenchmarkDotNet (173 ns a message against 35 ns once
/// promoted). The multiplier of 1 lets the 1-core job reach tier 1 within its warm-up, as the others do, so every job
/// measures steady state; a long-running program on one core reaches the same code, later.
/// </remarks>
public static class BenchmarkConfig
{
    public static IConfig Create(IReadOnlyList<int> cores, Job baseJob, string? cpuSamples)
    {
        var config = ManualConfig.CreateEmpty()
            .AddColumnProvider(DefaultColumnProviders.Instance)
            .AddColumn(new ThroughputColumn(), new PercentOfLimitColumn("DirectCall"), new PercentOfLimitColumn("RawRing"))
            .AddLogger(ConsoleLogger.Default)
            .AddExporter(MarkdownExporter.GitHub, CsvExporter.Default, JsonExporter.Full)
            .AddDiagnoser(MemoryDiagnoser.Default, ThreadingDiagnoser.Default)
            .WithOption(ConfigOptions.JoinSummary, false)
            .WithSummaryStyle(SummaryStyle.Default.WithMaxParameterColumnWidth(40)); // case names such as "ChannelBounded 1->4 work-sharing" stay whole
        if (cpuSamples is not null)
        {
            config.AddColumn(new CpuPerMessageColumn(cpuSamples));
        }

        foreach (var count in cores)
        {
            var id = JobId(count);
            config.AddJob(baseJob
                .WithId(id)
                .WithAffinity(checked((nint)((1L << count) - 1)))
                .WithEnvironmentVariables(
                    new EnvironmentVariable("DOTNET_PROCESSOR_COUNT", count.ToString(CultureInfo.InvariantCulture)),
                    new EnvironmentVariable("DOTNET_TC_DelaySingleProcMultiplier", "1"),
                    new EnvironmentVariable(CpuSampleStore.JobVariable, id)));
        }

        return config;
    }

    public static string JobId(int cores) => cores == 1 ? "1 core" : $"{cores} cores";
}
