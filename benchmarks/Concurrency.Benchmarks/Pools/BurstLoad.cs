
namespace Concurrency.Benchmarks.Pools;

/// <summary>The burst: <paramref name="Tasks"/> tasks that each block for <paramref name="Block"/>, and the most time a contender gets to run them all.</summary>
internal sealed record BurstLoad(int Tasks, TimeSpan Block, TimeSpan Budget);
