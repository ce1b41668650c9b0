namespace Concurrency.Benchmarks.Pools.Workloads;

/// <summary>How long one split operation may take before the lab calls it lost rather than slow.</summary>
internal static class WorkloadBounds
{
    public static readonly TimeSpan Operation = TimeSpan.FromMinutes(2);

    /// <summary>Waits for <paramref name="parts"/>; a part's exception surfaces, a part still running after the bound fails the lab.</summary>
    public static void WaitAll(Task parts, string what)
    {
        if (!parts.Wait(Operation))
        {
            throw new LabVerificationException($"{what}: the parts did not finish within {Operation}.");
        }
    }
}
