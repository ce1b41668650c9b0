
namespace Concurrency.Benchmarks.Backbone.Reporting;

/// <summary>
/// A tiny seeded generator (SplitMix64), ours so that the report's intervals are the same on every machine and runtime
/// version: System.Random makes no such promise across versions.
/// </summary>
public struct SplitMix64(ulong seed)
{
    private ulong _state = seed; // a value type used by one caller at a time: no sharing

    public ulong Next()
    {
        var z = _state += 0x9E3779B97F4A7C15UL;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9UL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBUL;
        return z ^ (z >> 31);
    }

    /// <summary>A whole number in [0, <paramref name="bound"/>); the modulo bias is below 1e-15 for the sizes used here.</summary>
    public int NextIndex(int bound) => (int)(Next() % (ulong)bound);
}
