
namespace Concurrency.Benchmarks.Pools.Admission;

/// <summary>One run of the stress: how long it took and what the gate did, every attempt accounted for.</summary>
public sealed record AdmissionRunResult(double Seconds, long Attempted, long Admitted, long Rejected, long Throttled, int MaxOutstanding)
{
    /// <summary>Gets the admitted (and so completed) items per second: the work done, not the attempts.</summary>
    public double ItemsPerSecond => Admitted / Seconds;
}
