using System.Text.Json.Serialization;

namespace Concurrency.Benchmarks.Backbone.Cpu;

/// <summary>
/// The process CPU time one benchmark process (one launch of one case on one job) spent in its measured iterations, and the
/// messages those iterations moved. <see cref="Launch"/> is 0 as written by the benchmark process and numbered from 1, in
/// start order per case and job, once the host collects the samples of a run; the host also adds
/// <see cref="Benchmark"/>, BenchmarkDotNet's full name of the case, which the report matches against the results.
/// </summary>
public sealed record CpuSample(
    string Case,
    string Job,
    int Launch,
    int ProcessId,
    DateTime StartedUtc,
    int Iterations,
    long Messages,
    double CpuNanoseconds,
    string? Benchmark = null)
{
    /// <summary>Gets what the measured iterations covered, as the report states it.</summary>
    public const string Scope = "the workload's measured iterations only (BenchmarkDotNet's WorkloadActual stage, read in the benchmark process from its engine events): not jitting, pilot, warm-up, overhead or diagnoser runs";

    [JsonIgnore]
    public double NanosecondsPerMessage => Messages > 0 ? CpuNanoseconds / Messages : double.NaN;

    /// <summary>Pools launches: total CPU over total messages, or null when none measured anything.</summary>
    public static double? PerMessage(IEnumerable<CpuSample> samples)
    {
        long messages = 0;
        double cpu = 0;
        foreach (var sample in samples)
        {
            messages += sample.Messages;
            cpu += sample.CpuNanoseconds;
        }

        return messages > 0 ? cpu / messages : null;
    }
}
