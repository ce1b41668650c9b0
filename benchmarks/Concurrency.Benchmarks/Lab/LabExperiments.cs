using Concurrency.Benchmarks.Lab.Pool;

namespace Concurrency.Benchmarks.Lab;

/// <summary>Every experiment of the lab, in the order the report lists them. Add a new experiment here.</summary>
public static class LabExperiments
{
    public static IReadOnlyList<ILabExperiment> All { get; } =
    [
        new Workloads.WorkloadsExperiment(),
        new Logs.LogsExperiment(),
        new PoolExperiment(),
        new PoolShrinkExperiment(),
        new PoolBurstExperiment(),
        new Admission.AdmissionExperiment(),
        new Grpc.GrpcExperiment(),
    ];

    public static ILabExperiment? Named(string name) => All.FirstOrDefault(e => string.Equals(e.Name, name, StringComparison.OrdinalIgnoreCase));
}
