
namespace Concurrency.Benchmarks.Pools.Workloads;

/// <summary>The .NET baseline: each part is a <see cref="Task.Run(Action)"/> on the thread pool, then one wait for all.</summary>
public sealed class TaskRunWorkers : ILabWorkers
{
    public string Name => ".NET thread pool (Task.Run)";

    public void RunAll(IReadOnlyList<Action> parts)
    {
        WorkloadBounds.WaitAll(Task.WhenAll(parts.Select(Task.Run)), Name);
    }

    public void Dispose()
    {
    }
}
