
namespace Concurrency.Benchmarks.Pools;

/// <summary>The .NET thread pool, fed through its global queue as a producer thread outside the pool would.</summary>
public sealed class ThreadPoolContender : IPoolContender
{
    public string Name => ".NET thread pool";

    public int Threads => ThreadPool.ThreadCount;

    public void Submit(PoolProbe probe, int index)
        => ThreadPool.UnsafeQueueUserWorkItem(static task => task.Probe.Run(task.Index), (Probe: probe, Index: index), preferLocal: false);

    public void Dispose()
    {
    }
}
