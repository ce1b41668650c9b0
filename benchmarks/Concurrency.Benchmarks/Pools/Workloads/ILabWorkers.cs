namespace Concurrency.Benchmarks.Pools.Workloads;

/// <summary>
/// Workers the lab splits a workload across: long-lived (built once per experiment, like a server's pool), handed the
/// parts of one operation and returning when every part has run. The seam where each worker kind plugs in.
/// </summary>
public interface ILabWorkers : IDisposable
{
    /// <summary>Gets the name in the report.</summary>
    string Name { get; }

    /// <summary>Runs every part, concurrently as far as the workers allow, and returns when all have run.</summary>
    /// <exception cref="LabVerificationException">A part failed or did not run within the bound.</exception>
    void RunAll(IReadOnlyList<Action> parts);
}
