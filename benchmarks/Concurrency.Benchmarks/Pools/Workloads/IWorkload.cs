namespace Concurrency.Benchmarks.Pools.Workloads;

/// <summary>
/// One workload of the seed: done sequentially on the calling thread, or split into parts that run on workers and are
/// then combined. Each run checks its own result and throws <see cref="LabVerificationException"/> if it is wrong.
/// </summary>
internal interface IWorkload
{
    /// <summary>Gets the name in the report.</summary>
    string Name { get; }

    /// <summary>Gets the seed's figure for this workload, for the report.</summary>
    string Seed { get; }

    /// <summary>One operation, sequentially.</summary>
    void RunSequential();

    /// <summary>One operation split into <paramref name="parts"/> parts on <paramref name="workers"/>, then combined.</summary>
    void RunSplit(ILabWorkers workers, int parts);
}
