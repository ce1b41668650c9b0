using BenchmarkDotNet.Attributes;
using Concurrency.Benchmarks.Harness;
using Concurrency.Benchmarks.Paths;
using Concurrency.Messaging.Pipes;

namespace Concurrency.Benchmarks.Scenarios;

/// <summary>
/// Throughput against buffer size for the bounded pipes, 1 producer → 1 consumer. Blocks are smaller than the headline's:
/// at capacity 1 every message is a handoff, and a block must still fit an iteration of a few hundred milliseconds.
/// </summary>
public class CapacitySweepBenchmarks : PathBenchmark
{
    public const int SweepMessageCount = 1 << 14;

    public CapacitySweepBenchmarks() => MessageCount = SweepMessageCount;

    [Params(PipeKind.Ring, PipeKind.Channel, PipeKind.BlockingCollection)]
    public PipeKind Kind { get; set; } = PipeKind.Ring;

    [Params(1, 16, 64, 256, 4096)]
    public int Capacity { get; set; } = 16;

    protected override string Scenario => $"Capacity {Kind} {Capacity}";

    [Benchmark(OperationsPerInvoke = SweepMessageCount)]
    public void Bounded() => Transfer();

    protected override IMessagePath CreatePath() => new PipePath(Kind, new PipeOptions { Capacity = Capacity });
}
