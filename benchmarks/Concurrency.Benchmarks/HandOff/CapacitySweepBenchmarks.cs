using BenchmarkDotNet.Attributes;
using Concurrency.Benchmarks.HandOff.Paths;

namespace Concurrency.Benchmarks.HandOff;

/// <summary>
/// Throughput against buffer size for the bounded pipes and drop-in operators, 1 producer → 1 consumer, and the ring's
/// 1 → 3 broadcast (<see cref="CapacityContenders"/>). Blocks are smaller than the headline's: at capacity 1 every message
/// is a handoff, and a block must still fit an iteration of a few hundred milliseconds.
/// </summary>
public class CapacitySweepBenchmarks : PathBenchmark
{
    public const int SweepMessageCount = 1 << 14;

    public CapacitySweepBenchmarks() => MessageCount = SweepMessageCount;

    [ParamsSource(nameof(Kinds))]
    public string Kind { get; set; } = "Ring";

    [Params(1, 16, 64, 4096)]
    public int Capacity { get; set; } = 16;

    protected override string Scenario => $"Capacity {Kind} {Capacity}";

    public static IEnumerable<string> Kinds() => CapacityContenders.Registry.Names;

    [Benchmark(OperationsPerInvoke = SweepMessageCount)]
    public void Bounded() => Transfer();

    protected override IMessagePath CreatePath() => CapacityContenders.Registry[Kind].Build(Capacity);
}
