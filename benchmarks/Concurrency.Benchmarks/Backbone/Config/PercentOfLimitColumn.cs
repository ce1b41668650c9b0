using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;

namespace Concurrency.Benchmarks.Backbone.Config;

/// <summary>
/// Throughput as a percentage of a ceiling measured in the same run on the same job (core count): the headline's DirectCall
/// row (no handoff at all) or its RawRing row (the cheapest core-to-core handoff). Shown where the ceiling row is present.
/// </summary>
public sealed class PercentOfLimitColumn(string ceilingPath) : IColumn
{
    public string Id => $"{nameof(PercentOfLimitColumn)}.{ceilingPath}";

    public string ColumnName => $"% of {ceilingPath}";

    public bool AlwaysShow => true;

    public ColumnCategory Category => ColumnCategory.Custom;

    public int PriorityInCategory => 1;

    public bool IsNumeric => true;

    public UnitType UnitType => UnitType.Dimensionless;

    public string Legend => $"msg/s as a percentage of the {ceilingPath} ceiling on the same job";

    public string GetValue(Summary summary, BenchmarkCase benchmarkCase)
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

        return (100 * rate / limit).ToString("0.0", System.Globalization.CultureInfo.InvariantCulture);
    }

    public string GetValue(Summary summary, BenchmarkCase benchmarkCase, SummaryStyle style) => GetValue(summary, benchmarkCase);

    public bool IsDefault(Summary summary, BenchmarkCase benchmarkCase) => false;

    public bool IsAvailable(Summary summary) => true;
}
