
namespace Concurrency.Benchmarks.Pools;

/// <summary>One measured run: tasks per second of busy time, and the submit-to-start wait at three percentiles, in microseconds.</summary>
public sealed record PoolRunResult(double TasksPerSecond, double P50, double P99, double P999);
