using System.Reactive.Concurrency;
using System.Reactive.Linq;
using BenchmarkDotNet.Attributes;
using Concurrency.Benchmarks.HandOff;
using Concurrency.Benchmarks.HandOff.Paths;
using Concurrency.Messaging.Linq;

namespace Concurrency.Benchmarks.Topologies;

/// <summary>
/// The seed's first complaint: ObserveOn handles one message at a time even on a pool. A CPU-bound selector of about 1 µs
/// and 10 µs per message, results required in source order: plain ObserveOn, our ordered parallel ObserveOn, and TPL
/// Dataflow's TransformBlock (EnsureOrdered) at the same degree of parallelism. Blocks are small, so that one block takes
/// tens of milliseconds even at 10 µs a message and BenchmarkDotNet can fit several in an iteration.
/// </summary>
public class OrderedParallelBenchmarks : PathBenchmark
{
    public const int ParallelMessageCount = 4096;

    public OrderedParallelBenchmarks() => MessageCount = ParallelMessageCount;

    [ParamsAllValues]
    public ParallelPath Path { get; set; }

    [Params(1, 10)]
    public int SelectorMicroseconds { get; set; } = 1;

    protected override string Scenario => $"Ordered parallel {Path} {SelectorMicroseconds} µs";

    [Benchmark(OperationsPerInvoke = ParallelMessageCount)]
    public void Select() => Transfer();

    protected override IMessagePath CreatePath()
    {
        var iterations = CpuWork.IterationsFor(SelectorMicroseconds);
        var degree = Environment.ProcessorCount;

        // The work's result feeds a branch the consumer depends on, so the JIT cannot drop it.
        Message Work(Message message) => CpuWork.Burn(iterations, message.Id) == 0 ? throw new InvalidOperationException("xorshift reached 0") : message;

        return Path switch
        {
            ParallelPath.RxObserveOnThenSelect => new ObservablePath(s => s.ObserveOn(TaskPoolScheduler.Default).Select(Work)),
            ParallelPath.ObserveOnParallel => new ObservablePath(s => s.ObserveOnParallel(Work, degree)),
            ParallelPath.ObserveOnParallelAsync => new ObservablePath(
                s => s.ObserveOnParallel((Message m, CancellationToken _) => ValueTask.FromResult(Work(m)), degree)),
            ParallelPath.DataflowTransformBlock => new TransformBlockPath(Work, degree),
            _ => throw new ArgumentOutOfRangeException(nameof(Path), Path, "Unknown parallel path."),
        };
    }
}
