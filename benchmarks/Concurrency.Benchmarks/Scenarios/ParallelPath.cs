namespace Concurrency.Benchmarks.Scenarios;

/// <summary>The contenders for CPU-bound work per message with ordered results.</summary>
public enum ParallelPath
{
    /// <summary>Rx ObserveOn(TaskPool) then Select: one message at a time.</summary>
    RxObserveOnThenSelect,

    /// <summary>Our ordered parallel ObserveOn with N = processor count.</summary>
    ObserveOnParallel,

    /// <summary>TPL Dataflow TransformBlock, EnsureOrdered, MaxDegreeOfParallelism = processor count.</summary>
    DataflowTransformBlock,
}
