using System.Globalization;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;

namespace Concurrency.Benchmarks.Backbone.Config;

/// <summary>Messages per second: the inverse of the median time per operation (each operation is one message).</summary>
public sealed class ThroughputColumn() : NumberColumn(
    nameof(ThroughputColumn), "msg/s", priority: 0, "Messages moved end to end per second (1 / median time per message)")
{
    public static double? MessagesPerSecond(Summary summary, BenchmarkCase benchmarkCase)
    {
        var median = summary[benchmarkCase]?.ResultStatistics?.Median;
        return median is > 0 ? 1e9 / median : null;
    }

    public override string GetValue(Summary summary, BenchmarkCase benchmarkCase)
        => MessagesPerSecond(summary, benchmarkCase) is { } rate ? rate.ToString("N0", CultureInfo.InvariantCulture) : "-";
}
