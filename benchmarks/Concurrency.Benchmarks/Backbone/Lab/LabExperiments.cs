using Concurrency.Benchmarks.CrossProcess;
using Concurrency.Benchmarks.Logs;
using Concurrency.Benchmarks.Pools;
using Concurrency.Benchmarks.Pools.Admission;
using Concurrency.Benchmarks.Pools.Workloads;
using Concurrency.Benchmarks.Replicas;

namespace Concurrency.Benchmarks.Backbone.Lab;

/// <summary>Every experiment of the lab, in the order the report lists them. Add a new experiment here.</summary>
public static class LabExperiments
{
    public static IReadOnlyList<ILabExperiment> All { get; } =
    [
        new WorkloadsExperiment(),
        new LogsExperiment(),
        new PoolExperiment(),
        new PoolShrinkExperiment(),
        new PoolBurstExperiment(),
        new AdmissionExperiment(),
        new GrpcExperiment(),
        new NatsExperiment(),
        new ReplicasExperiment(),
    ];

    public static ILabExperiment? Named(string name) => All.FirstOrDefault(e => string.Equals(e.Name, name, StringComparison.OrdinalIgnoreCase));
}
