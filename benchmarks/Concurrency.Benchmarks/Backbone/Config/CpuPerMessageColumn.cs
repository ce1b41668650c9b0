using System.Globalization;
using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;

namespace Concurrency.Benchmarks.Backbone.Config;

/// <summary>
/// Process CPU time per message over the measured iterations, all launches pooled, read from the samples the benchmark
/// processes of this run wrote. Beside msg/s it shows what a spinning consumer costs: two busy cores at the same rate as one
/// parked consumer read as twice the CPU per message.
/// </summary>
public sealed class CpuPerMessageColumn(string sampleDirectory) : IColumn
{
    public string Id => nameof(CpuPerMessageColumn);

    public string ColumnName => "CPU ns/msg";

    public bool AlwaysShow => true;

    public ColumnCategory Category => ColumnCategory.Custom;

    public int PriorityInCategory => 2;

    public bool IsNumeric => true;

    public UnitType UnitType => UnitType.Dimensionless;

    public string Legend => "Process CPU time (all threads) over the measured iterations, divided by the messages they moved";

    public string GetValue(Summary summary, BenchmarkCase benchmarkCase)
    {
        var key = CaseKey.Of(benchmarkCase);
        var perMessage = CpuSample.PerMessage(CpuSampleStore.ReadAll(sampleDirectory).Where(s => s.Case == key && s.Job == benchmarkCase.Job.Id));
        return perMessage is { } value ? value.ToString("0.0", CultureInfo.InvariantCulture) : "-";
    }

    public string GetValue(Summary summary, BenchmarkCase benchmarkCase, SummaryStyle style) => GetValue(summary, benchmarkCase);

    public bool IsDefault(Summary summary, BenchmarkCase benchmarkCase) => false;

    public bool IsAvailable(Summary summary) => true;
}
