using CsCheck;

namespace Concurrency.Messaging.Tests.Linearizability;

/// <summary>
/// The one way the linearizability suites run CsCheck's <c>SampleParallel</c>: fresh actual and model states for each
/// sample, the actual's own <see cref="ILinearizable{TModel}.Matches"/> as the equality, and both states printed when a
/// sample fails.
/// </summary>
internal static class LinearizabilityCheck
{
    /// <param name="initial">Makes a fresh actual and model; CsCheck calls it for every order it tries.</param>
    /// <param name="operations">The operations, each as likely as its share of the list.</param>
    /// <param name="maxOperations">The most operations run one after another before the parallel ones, and in parallel.</param>
    /// <param name="iter">Samples to run, or -1 to run for <paramref name="time"/>.</param>
    /// <param name="time">Seconds to run, or -1 to run <paramref name="iter"/> samples.</param>
    /// <param name="threads">Threads the parallel operations run on; by default one per logical CPU, as CsCheck's own default.</param>
    public static void Run<TActual, TModel>(
        Func<(TActual Actual, TModel Model)> initial,
        GenOperation<TActual, TModel>[] operations,
        (int Sequential, int Parallel) maxOperations,
        long iter,
        int time,
        int? threads = null)
        where TActual : ILinearizable<TModel>
        where TModel : notnull
        => Gen.Int.Select(_ => initial()).SampleParallel(
            operations,
            equal: (actual, model) => actual.Matches(model),
            maxSequentialOperations: maxOperations.Sequential,
            maxParallelOperations: maxOperations.Parallel,
            iter: iter,
            time: time,
            threads: threads ?? Environment.ProcessorCount,
            printActual: actual => actual.ToString()!,
            printModel: model => model.ToString()!);
}

/// <summary>An actual state that says whether a sequential model explains what happened to it.</summary>
internal interface ILinearizable<in TModel>
{
    bool Matches(TModel model);
}
