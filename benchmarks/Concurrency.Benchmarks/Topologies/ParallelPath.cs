
namespace Concurrency.Benchmarks.Topologies;

/// <summary>The contenders for CPU-bound work per message with ordered results.</summary>
public enum ParallelPath
{
    /// <summary>Rx ObserveOn(TaskPool) then Select: one message at a time.</summary>
    RxObserveOnThenSelect,

    /// <summary>Our ordered parallel ObserveOn with N = processor count, synchronous selector.</summary>
    ObserveOnParallel,

    /// <summary>The same operator with its async selector overload (the selector completes synchronously).</summary>
    ObserveOnParallelAsync,

    /// <summary>TPL Dataflow TransformBlock, EnsureOrdered, MaxDegreeOfParallelism = processor count.</summary>
    DataflowTransformBlock,
}
