using System.Globalization;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;

namespace Concurrency.Benchmarks.Backbone.Config;

/// <summary>
/// Process CPU time per message over the measured iterations, all launches pooled, read from the samples the benchmark
/// processes of this run wrote. Beside msg/s it shows what a spinning consumer costs: two busy cores at the same rate as one
/// parked consumer read as twice the CPU per message.
/// </summary>
public sealed class CpuPerMessageColumn(string sampleDirectory) : NumberColumn(
    nameof(CpuPerMessageColumn),
    "CPU ns/msg",
    priority: 2,
    "Process CPU time (all threads) over the measured iterations, divided by the messages they moved")
{
    public override string GetValue(Summary summary, BenchmarkCase benchmarkCase)
    {
        var key = CaseKey.Of(benchmarkCase);
        var perMessage = CpuSample.PerMessage(CpuSampleStore.ReadAll(sampleDirectory).Where(s => s.Case == key && s.Job == benchmarkCase.Job.Id));
        return perMessage is { } value ? value.ToString("0.0", CultureInfo.InvariantCulture) : "-";
    }
}
