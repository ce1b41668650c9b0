namespace Concurrency.Benchmarks.Lab.Workloads;

/// <summary>How long one split operation may take before the lab calls it lost rather than slow.</summary>
internal static class WorkloadBounds
{
    public static readonly TimeSpan Operation = TimeSpan.FromMinutes(2);
}
