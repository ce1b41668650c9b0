using Concurrency.Messaging.Workers;

namespace Concurrency.Benchmarks.Pools.Workloads;

/// <summary>Our elastic worker pool (<see cref="WorkerPool.Create"/>): a part never waits for a free worker.</summary>
public sealed class PoolWorkers : ILabWorkers
{
    private readonly IWorkerPool _pool = WorkerPool.Create();

    public string Name => "elastic worker pool";

    public void RunAll(IReadOnlyList<Action> parts)
    {
        WorkloadBounds.WaitAll(Task.WhenAll(parts.Select(part => _pool.RunAsync(part))), Name);
    }

    public void Dispose() => _pool.Dispose();
}
