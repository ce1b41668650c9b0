using Concurrency.Messaging.Pipes;

namespace Concurrency.Benchmarks.Pools;

/// <summary>
/// A fixed pool of one dedicated thread per core: our batch-drain queue pipe with its consumers sharing the work, so a task
/// waits whenever every thread is busy.
/// </summary>
public sealed class FixedPoolContender : IPoolContender
{
    private readonly IPipe<(PoolProbe Probe, int Index)> _pipe;

    public FixedPoolContender(int threads)
    {
        Threads = threads;
        _pipe = Pipe.Create<(PoolProbe Probe, int Index)>(
            PipeKind.BatchDrainQueue,
            [.. Enumerable.Repeat<Action<(PoolProbe Probe, int Index)>>(static task => task.Probe.Run(task.Index), threads)],
            new PipeOptions { Distribution = PipeDistribution.WorkSharing });
    }

    public string Name => "fixed pool";

    public int Threads { get; }

    public void Submit(PoolProbe probe, int index) => _pipe.Post((probe, index));

    public void Dispose()
    {
        _pipe.Complete();
        _pipe.Completion.GetAwaiter().GetResult();
    }
}
