using System.Diagnostics;

namespace Concurrency.Benchmarks.Backbone.Latency;

/// <summary>
/// What taking one timestamp (<see cref="Stopwatch.GetTimestamp"/>) costs on this machine, stated beside the latencies:
/// every timed message pays at least two (the producer's due check, the consumer's record), so a latency is never below
/// that, and a figure within a few of it is the clock's, not the path's.
/// </summary>
public static class TimestampCost
{
    private const int Calls = 1_000_000;
    private const int Rounds = 5;

    /// <summary>The median of <see cref="Rounds"/> rounds of a million back-to-back timestamps, in ns per timestamp.</summary>
    public static double Measure()
    {
        var rounds = new double[Rounds];
        for (var round = 0; round < Rounds; round++)
        {
            var sink = 0L;
            var start = Stopwatch.GetTimestamp();
            for (var i = 0; i < Calls; i++)
            {
                sink ^= Stopwatch.GetTimestamp();
            }

            var elapsed = Stopwatch.GetElapsedTime(start);
            GC.KeepAlive(sink);
            rounds[round] = elapsed.TotalNanoseconds / Calls;
        }

        Array.Sort(rounds);
        return rounds[Rounds / 2];
    }
}
