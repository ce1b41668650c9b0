using System.Diagnostics;

namespace Concurrency.Benchmarks.HandOff;

/// <summary>
/// How long a cache line takes to go from one core to another and back, measured by two threads that hand a counter to
/// each other. On a VM this is not fixed: the hypervisor moves its virtual CPUs between physical cores, and on the 2-core
/// development VM the round trip measured about 70 ns at some moments and 330–400 ns at others, seconds apart. Every
/// hand-off between a producer and a consumer on different cores pays it, so the loop records it beside each result.
/// </summary>
internal static class CoreRoundTrip
{
    private const int RoundTrips = 100_000;

    // A round on two free cores takes 5-80 ms here; one that has not finished in this time is not measuring the cores.
    private static readonly TimeSpan Limit = TimeSpan.FromSeconds(1);

    /// <summary>Measures the median round trip, in nanoseconds, over a few rounds.</summary>
    /// <returns>
    /// <see langword="null"/> on one core, where the two threads cannot spin at once, and when a round ran past its limit
    /// (the machine's other work left the two threads sharing a core): then there is no core-to-core figure to give.
    /// </returns>
    public static double? Measure()
    {
        if (Environment.ProcessorCount < 2)
        {
            return null;
        }

        return ProbeRounds.MedianOfThree(MeasureOnce);
    }

    private static double? MeasureOnce()
    {
        // Index 8 of 24: the counter alone on its cache line whatever the array's alignment. The main thread writes odd
        // values and waits for the next even one; the echo thread answers each odd value with the even one after it.
        var line = new long[24];
        var watchAll = Stopwatch.StartNew();
        var echo = new Thread(() =>
        {
            for (long i = 0; i < RoundTrips; i++)
            {
                var asked = (2 * i) + 1;
                var spins = 0;
                while (Volatile.Read(ref line[8]) != asked)
                {
                    if (++spins % 65536 == 0 && watchAll.Elapsed > Limit)
                    {
                        return;
                    }
                }

                Volatile.Write(ref line[8], asked + 1);
            }
        })
        { IsBackground = true, Name = "round-trip echo" };
        echo.Start();
        var watch = Stopwatch.StartNew();
        for (long i = 0; i < RoundTrips; i++)
        {
            Volatile.Write(ref line[8], (2 * i) + 1);
            var spins = 0;
            while (Volatile.Read(ref line[8]) != (2 * i) + 2)
            {
                if (++spins % 65536 == 0 && watchAll.Elapsed > Limit)
                {
                    echo.Join(); // it gives up at the same limit
                    return null;
                }
            }
        }

        watch.Stop();
        echo.Join();
        return watch.Elapsed.TotalNanoseconds / RoundTrips;
    }
}
