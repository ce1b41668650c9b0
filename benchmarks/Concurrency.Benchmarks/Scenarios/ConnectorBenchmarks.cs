using BenchmarkDotNet.Attributes;
using Concurrency.Benchmarks.Harness;
using Concurrency.Benchmarks.Paths;

namespace Concurrency.Benchmarks.Scenarios;

/// <summary>Subject-as-connector overhead: one OnNext delivered to 1, 4 and 16 subscribers with no thread hop.</summary>
public class ConnectorBenchmarks : PathBenchmark
{
    [Params(1, 4, 16)]
    public int Subscribers { get; set; } = 1;

    protected override string Scenario => $"Connector to {Subscribers}";

    [Benchmark(OperationsPerInvoke = DefaultMessageCount)]
    public void Fanout() => Transfer();

    protected override IMessagePath CreatePath() => new ConnectorPath(Subscribers);
}
