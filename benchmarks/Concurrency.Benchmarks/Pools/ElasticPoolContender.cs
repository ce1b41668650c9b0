using Concurrency.Messaging.Workers;

namespace Concurrency.Benchmarks.Pools;

/// <summary>Our elastic pool with its defaults: a new dedicated thread whenever no worker is idle, retired by the leaky bucket.</summary>
public sealed class ElasticPoolContender : IPoolContender
{
    private readonly IWorkerPool _pool = WorkerPool.Create();

    public string Name => "elastic pool";

    public int Threads => _pool.Metrics.WorkersAlive;

    public void Submit(PoolProbe probe, int index) => _pool.Post(() => probe.Run(index));

    public void Dispose()
    {
        if (_pool.Metrics.TasksFailed != 0)
        {
            throw new LabVerificationException($"{Name}: {_pool.Metrics.TasksFailed} tasks threw.");
        }

        _pool.Dispose();
    }
}
