using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;

namespace Concurrency.Benchmarks.Backbone.Config;

/// <summary>Messages per second: the inverse of the median time per operation (each operation is one message).</summary>
public sealed class ThroughputColumn : IColumn
{
    public string Id => nameof(ThroughputColumn);

    public string ColumnName => "msg/s";

    public bool AlwaysShow => true;

    public ColumnCategory Category => ColumnCategory.Custom;

    public int PriorityInCategory => 0;

    public bool IsNumeric => true;

    public UnitType UnitType => UnitType.Dimensionless;

    public string Legend => "Messages moved end to end per second (1 / median time per message)";

    public static double? MessagesPerSecond(Summary summary, BenchmarkCase benchmarkCase)
    {
        var median = summary[benchmarkCase]?.ResultStatistics?.Median;
        return median is > 0 ? 1e9 / median : null;
    }

    public string GetValue(Summary summary, BenchmarkCase benchmarkCase)
        => MessagesPerSecond(summary, benchmarkCase) is { } rate ? rate.ToString("N0", System.Globalization.CultureInfo.InvariantCulture) : "-";

    public string GetValue(Summary summary, BenchmarkCase benchmarkCase, SummaryStyle style) => GetValue(summary, benchmarkCase);

    public bool IsDefault(Summary summary, BenchmarkCase benchmarkCase) => false;

    public bool IsAvailable(Summary summary) => true;
}
