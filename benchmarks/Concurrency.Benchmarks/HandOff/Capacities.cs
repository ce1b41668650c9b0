
namespace Concurrency.Benchmarks.HandOff;

/// <summary>Buffer sizes the scenarios share, stated here rather than borrowed from the library's defaults.</summary>
public static class Capacities
{
    /// <summary>The capacity every bounded contender gets in the headline and topologies (the ring's documented default).</summary>
    public const int Bounded = 4096;
}
