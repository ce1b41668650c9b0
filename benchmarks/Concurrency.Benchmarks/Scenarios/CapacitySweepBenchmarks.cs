using BenchmarkDotNet.Attributes;
using Concurrency.Benchmarks.Harness;
using Concurrency.Benchmarks.Paths;
using Concurrency.Messaging.Pipes;

namespace Concurrency.Benchmarks.Scenarios;

/// <summary>Throughput against buffer size for the bounded pipes, 1 producer → 1 consumer.</summary>
public class CapacitySweepBenchmarks : PathBenchmark
{
    [Params(PipeKind.Ring, PipeKind.Channel, PipeKind.BlockingCollection)]
    public PipeKind Kind { get; set; } = PipeKind.Ring;

    [Params(1, 16, 256, 4096)]
    public int Capacity { get; set; } = 16;

    protected override string Scenario => $"Capacity {Kind} {Capacity}";

    [Benchmark(OperationsPerInvoke = DefaultMessageCount)]
    public void Bounded() => Transfer();

    protected override IMessagePath CreatePath() => new PipePath(Kind, new PipeOptions { Capacity = Capacity });
}
