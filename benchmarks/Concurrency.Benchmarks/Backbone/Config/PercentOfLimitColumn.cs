using System.Globalization;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;

namespace Concurrency.Benchmarks.Backbone.Config;

/// <summary>
/// Throughput as a percentage of a ceiling measured in the same run on the same job (core count): the headline's DirectCall
/// row (no handoff at all) or its RawRing row (the cheapest core-to-core handoff). Shown where the ceiling row is present.
/// </summary>
public sealed class PercentOfLimitColumn(string ceilingPath) : NumberColumn(
    $"{nameof(PercentOfLimitColumn)}.{ceilingPath}",
    $"% of {ceilingPath}",
    priority: 1,
    $"msg/s as a percentage of the {ceilingPath} ceiling on the same job")
{
    public override string GetValue(Summary summary, BenchmarkCase benchmarkCase)
    {
        var ceiling = summary.BenchmarksCases.FirstOrDefault(c =>
            c.Job.Id == benchmarkCase.Job.Id
            && c.Descriptor.Type == benchmarkCase.Descriptor.Type
            && c.Parameters.Items.Any(p => p.Name == "Path" && p.Value?.ToString() == ceilingPath));
        if (ceiling is null
            || ThroughputColumn.MessagesPerSecond(summary, benchmarkCase) is not { } rate
            || ThroughputColumn.MessagesPerSecond(summary, ceiling) is not { } limit)
        {
            return "-";
        }

        return (100 * rate / limit).ToString("0.0", CultureInfo.InvariantCulture);
    }
}
