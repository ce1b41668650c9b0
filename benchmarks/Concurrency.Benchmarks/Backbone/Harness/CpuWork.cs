using System.Diagnostics;

namespace Concurrency.Benchmarks.Backbone.Harness;

/// <summary>A CPU-bound selector of a chosen cost: a xorshift loop, calibrated once per process against the clock.</summary>
public static class CpuWork
{
    private static readonly Lazy<double> IterationsPerMicrosecond = new(Calibrate);

    public static int IterationsFor(int microseconds) => Math.Max(1, (int)(IterationsPerMicrosecond.Value * microseconds));

    /// <summary>Burns <paramref name="iterations"/> steps seeded by <paramref name="seed"/>; the result depends on every step.</summary>
    public static long Burn(int iterations, long seed)
    {
        var x = (ulong)seed | 1;
        for (var i = 0; i < iterations; i++)
        {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
        }

        return (long)x;
    }

    private static double Calibrate()
    {
        const int probe = 1 << 20;
        Burn(probe, 1); // JIT and warm the loop
        var best = double.MaxValue;
        for (var round = 0; round < 5; round++)
        {
            var watch = Stopwatch.StartNew();
            Burn(probe, round + 2);
            best = Math.Min(best, watch.Elapsed.TotalMicroseconds);
        }

        return probe / best;
    }
}
