
namespace Concurrency.Benchmarks.Pools;

/// <summary>
/// How one producer submits a run's tasks: <paramref name="Bursts"/> bursts of <paramref name="BurstSize"/> tasks, each
/// submitted as fast as the producer can, waiting for the burst to end and then staying quiet for <paramref name="Quiet"/>.
/// Steady load is one long burst.
/// </summary>
public sealed record PoolLoad(string Name, int Bursts, int BurstSize, TimeSpan Quiet)
{
    public int Tasks => Bursts * BurstSize;
}
