namespace Concurrency.Benchmarks.Pools;

/// <summary>How the pools game builds a contender, for the machine's (or the run's) core count.</summary>
public delegate IPoolContender PoolBuild(int cores);

/// <summary>The pools game's contenders, in table order: our elastic pool, the .NET thread pool, a fixed pool of one thread per core.</summary>
public static class PoolContenders
{
    public static ContenderRegistry<PoolBuild> Registry { get; } = new("pools",
    [
        new("elastic pool", ContenderFamily.Ours, _ => new ElasticPoolContender()) { Note = "WorkerPool.Create(): a dedicated thread whenever no worker is idle" },
        new(".NET thread pool", ContenderFamily.Baseline, _ => new ThreadPoolContender()) { Note = "ThreadPool.UnsafeQueueUserWorkItem" },
        new("fixed pool", ContenderFamily.Baseline, cores => new FixedPoolContender(cores)) { Note = "one thread per core over one queue" },
    ]);
}
