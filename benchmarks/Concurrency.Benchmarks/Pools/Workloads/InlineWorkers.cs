
namespace Concurrency.Benchmarks.Pools.Workloads;

/// <summary>No concurrency: the parts run one after another on the calling thread. What splitting alone costs or saves.</summary>
public sealed class InlineWorkers : ILabWorkers
{
    public string Name => "split, no workers (parts one after another)";

    public void RunAll(IReadOnlyList<Action> parts)
    {
        foreach (var part in parts)
        {
            part();
        }
    }

    public void Dispose()
    {
    }
}
