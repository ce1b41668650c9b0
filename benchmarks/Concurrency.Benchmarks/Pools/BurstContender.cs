namespace Concurrency.Benchmarks.Pools;

/// <summary>One contender of the burst experiment: its name on the child's command line and its label in the table.</summary>
internal sealed record BurstContender(string Key, string Label)
{
    /// <summary>Our elastic pool with its default <c>MaxWorkers</c>.</summary>
    public static readonly BurstContender Capped = new("capped", "elastic pool, default cap");

    /// <summary>Our elastic pool with <c>MaxWorkers = int.MaxValue</c>: the pool as it was before the cap.</summary>
    public static readonly BurstContender Uncapped = new("uncapped", "elastic pool, no cap");

    /// <summary>The .NET thread pool, fed through its global queue.</summary>
    public static readonly BurstContender ThreadPool = new("thread-pool", ".NET thread pool");

    public static IReadOnlyList<BurstContender> All { get; } = [Capped, Uncapped, ThreadPool];

    /// <exception cref="LabVerificationException">No contender has that key.</exception>
    public static BurstContender Named(string key)
        => All.FirstOrDefault(c => c.Key == key) ?? throw new LabVerificationException($"pool-burst: no contender is named '{key}'.");
}
