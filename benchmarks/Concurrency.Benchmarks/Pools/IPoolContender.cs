
namespace Concurrency.Benchmarks.Pools;

/// <summary>One way to run small tasks on other threads, measured by the pool experiment.</summary>
public interface IPoolContender : IDisposable
{
    /// <summary>Gets the name in the tables.</summary>
    string Name { get; }

    /// <summary>Gets how many threads run tasks now (after a run: what the contender grew to).</summary>
    int Threads { get; }

    /// <summary>Submits task <paramref name="index"/> of <paramref name="probe"/>; the task calls <see cref="PoolProbe.Run"/>.</summary>
    void Submit(PoolProbe probe, int index);
}
