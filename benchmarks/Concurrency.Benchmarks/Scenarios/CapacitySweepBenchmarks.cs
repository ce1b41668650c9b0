using BenchmarkDotNet.Attributes;
using Concurrency.Benchmarks.Harness;
using Concurrency.Benchmarks.Paths;
using Concurrency.Messaging.Linq;
using Concurrency.Messaging.Pipes;

namespace Concurrency.Benchmarks.Scenarios;

/// <summary>
/// Throughput against buffer size for the bounded pipes and drop-in operators, 1 producer → 1 consumer, and the ring's
/// 1 → 3 broadcast. Blocks are smaller than the headline's: at capacity 1 every message is a handoff, and a block must still
/// fit an iteration of a few hundred milliseconds.
/// </summary>
public class CapacitySweepBenchmarks : PathBenchmark
{
    public const int SweepMessageCount = 1 << 14;

    public CapacitySweepBenchmarks() => MessageCount = SweepMessageCount;

    [Params("Ring", "Channel", "BlockingCollection", "ObserveOnRing", "ObserveOnChannel", "RingBroadcast3")]
    public string Kind { get; set; } = "Ring";

    [Params(1, 16, 64, 4096)]
    public int Capacity { get; set; } = 16;

    protected override string Scenario => $"Capacity {Kind} {Capacity}";

    [Benchmark(OperationsPerInvoke = SweepMessageCount)]
    public void Bounded() => Transfer();

    protected override IMessagePath CreatePath() => Kind switch
    {
        "Ring" => new PipePath(PipeKind.Ring, new PipeOptions { Capacity = Capacity }),
        "Channel" => new PipePath(PipeKind.Channel, new PipeOptions { Capacity = Capacity }),
        "BlockingCollection" => new PipePath(PipeKind.BlockingCollection, new PipeOptions { Capacity = Capacity }),
        "ObserveOnRing" => new ObservablePath(s => s.ObserveOnRing(Capacity)),
        "ObserveOnChannel" => new ObservablePath(s => s.ObserveOnChannel(Capacity)),
        "RingBroadcast3" => new PipePath(PipeKind.Ring, new PipeOptions { Capacity = Capacity }, consumers: 3),
        _ => throw new ArgumentOutOfRangeException(nameof(Kind), Kind, "Unknown bounded contender."),
    };
}
