using Concurrency.Messaging.Workers;

namespace Concurrency.Benchmarks.Lab.Workloads;

/// <summary>Our elastic worker pool (<see cref="WorkerPool.Create"/>): a part never waits for a free worker.</summary>
public sealed class PoolWorkers : ILabWorkers
{
    private readonly IWorkerPool _pool = WorkerPool.Create();

    public string Name => "elastic worker pool";

    public void RunAll(IReadOnlyList<Action> parts)
    {
        var tasks = parts.Select(part => _pool.RunAsync(part)).ToArray();
        if (!Task.WaitAll(tasks, WorkloadBounds.Operation))
        {
            throw new LabVerificationException($"{Name}: the parts did not finish within {WorkloadBounds.Operation}.");
        }
    }

    public void Dispose() => _pool.Dispose();
}
