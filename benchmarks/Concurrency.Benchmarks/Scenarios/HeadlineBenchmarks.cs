using System.Reactive.Concurrency;
using System.Reactive.Linq;
using BenchmarkDotNet.Attributes;
using Concurrency.Benchmarks.Harness;
using Concurrency.Benchmarks.Paths;
using Concurrency.Messaging.Linq;
using Concurrency.Messaging.Pipes;

namespace Concurrency.Benchmarks.Scenarios;

/// <summary>
/// The seed's experiment, redone and widened: small preallocated messages from one producer thread to one consumer on
/// another, through every path, beside the two ceilings (a direct call, and a raw busy-spinning ring). Every bounded
/// contender gets the same capacity.
/// </summary>
public class HeadlineBenchmarks : PathBenchmark
{
    [ParamsAllValues]
    public HeadlinePath Path { get; set; }

    protected override string Scenario => $"Headline {Path}";

    [Benchmark(OperationsPerInvoke = DefaultMessageCount)]
    public void OneToOne() => Transfer();

    protected override IMessagePath CreatePath() => Create(Path);

    /// <summary>Builds a headline contender; the loop command builds them the same way.</summary>
    public static IMessagePath Create(HeadlinePath path) => path switch
    {
        HeadlinePath.DirectCall => new DirectCallPath(),
        HeadlinePath.RawRing => new RawRingPath(),
        HeadlinePath.RxObserveOnTaskPool => new ObservablePath(s => s.ObserveOn(TaskPoolScheduler.Default)),
        HeadlinePath.RxObserveOnThreadPool => new ObservablePath(s => s.ObserveOn(ThreadPoolScheduler.Instance)),
        HeadlinePath.RxObserveOnEventLoop => EventLoop(),
        HeadlinePath.ObserveOnRing => new ObservablePath(s => s.ObserveOnRing(Capacities.Bounded)),
        HeadlinePath.ObserveOnLockedQueue => new ObservablePath(s => s.ObserveOnLockedQueue()),
        HeadlinePath.ObserveOnChannel => new ObservablePath(s => s.ObserveOnChannel()),
        HeadlinePath.ReaderWriterLockQueue => new PipePath(PipeKind.ReaderWriterLockQueue, new PipeOptions()),
        HeadlinePath.BatchDrainQueue => new PipePath(PipeKind.BatchDrainQueue, new PipeOptions()),
        HeadlinePath.Ring => new PipePath(PipeKind.Ring, new PipeOptions { Capacity = Capacities.Bounded }),
        HeadlinePath.ChannelUnbounded => new PipePath(PipeKind.Channel, new PipeOptions()),
        HeadlinePath.ChannelBounded => new PipePath(PipeKind.Channel, new PipeOptions { Capacity = Capacities.Bounded }),
        HeadlinePath.BlockingCollection => new PipePath(PipeKind.BlockingCollection, new PipeOptions()),
        HeadlinePath.DataflowActionBlock => new ActionBlockPath(),
        _ => throw new ArgumentOutOfRangeException(nameof(path), path, "Unknown headline path."),
    };

    private static ObservablePath EventLoop()
    {
        var loop = new EventLoopScheduler();
        return new ObservablePath(s => s.ObserveOn(loop), loop);
    }
}
