using BenchmarkDotNet.Attributes;
using Concurrency.Benchmarks.HandOff.Paths;

namespace Concurrency.Benchmarks.HandOff;

/// <summary>
/// Every queue under both runners, 1 producer → 1 consumer (<see cref="RunnerContenders"/>): each pipe kind with its
/// consumer on a dedicated thread and as turns on the thread pool (the runner that costs nothing while idle), beside
/// Dataflow's ActionBlock, which runs the same way on the pool. A case reads "Ring dedicated" or "Ring pool".
/// </summary>
public class RunnerBenchmarks : PathBenchmark
{
    [ParamsSource(nameof(Cases))]
    public string Case { get; set; } = "Ring pool";

    protected override string Scenario => $"Runner {Case}";

    public static IEnumerable<string> Cases() => RunnerContenders.Registry.Names;

    [Benchmark(OperationsPerInvoke = DefaultMessageCount)]
    public void OneToOne() => Transfer();

    protected override IMessagePath CreatePath() => RunnerContenders.Registry[Case].Build();
}
