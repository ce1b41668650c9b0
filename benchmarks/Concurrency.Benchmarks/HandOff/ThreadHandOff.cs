using System.Diagnostics;

namespace Concurrency.Benchmarks.HandOff;

/// <summary>
/// How long passing the one core from one thread to another takes: two threads take turns, each yielding the core until
/// it is its turn again. On one core a bounded pipe pays this twice per ring-full (the producer finds the ring full and
/// lets the consumer run, the consumer drains it and lets the producer run), so a ring of capacity C can move at most
/// C messages per two hand-offs, however it is written. On the 2-core development VM a hand-off took about 2 µs whether
/// the threads yielded, waited on a <see cref="SemaphoreSlim"/> or on a <see cref="ManualResetEventSlim"/>.
/// </summary>
internal static class ThreadHandOff
{
    private const int HandOffs = 100_000;

    // A round takes about 0.2 s here; one that has not finished in this time is not measuring a hand-off.
    private static readonly TimeSpan Limit = TimeSpan.FromSeconds(10);

    /// <summary>The median of three rounds of <see cref="HandOffs"/> hand-offs, in nanoseconds per hand-off.</summary>
    /// <returns>
    /// <see langword="null"/> on more than one core, where the two threads run side by side and hand nothing over, and when
    /// a round ran past its limit.
    /// </returns>
    public static double? Measure()
    {
        if (Environment.ProcessorCount != 1)
        {
            return null;
        }

        return ProbeRounds.MedianOfThree(static () => MeasureOnce(HandOffs));
    }

    /// <summary>One round of <paramref name="handOffs"/> hand-offs, in nanoseconds per hand-off; null past the limit.</summary>
    /// <remarks>
    /// The turn counter sits alone on its cache line. The main thread moves it from even to odd, the other thread from odd to
    /// even; a thread whose turn it is not yields. On more than one core this still runs (tests use it), but it then times
    /// two threads polling side by side, not a hand-off of one core.
    /// </remarks>
    internal static double? MeasureOnce(int handOffs)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(handOffs, 2);
        var line = new long[24];
        var watch = Stopwatch.StartNew();
        var other = new Thread(() => TakeTurns(line, handOffs, odd: true, watch)) { IsBackground = true, Name = "hand-off partner" };
        other.Start();
        TakeTurns(line, handOffs, odd: false, watch);
        other.Join();
        watch.Stop();

        // Exactly at the end unless one side gave up (it leaves the counter past the end).
        return Volatile.Read(ref line[8]) == handOffs ? watch.Elapsed.TotalNanoseconds / handOffs : null;
    }

    // Takes its turns until the counter reaches handOffs: this thread moves the counter when its parity matches.
    private static void TakeTurns(long[] line, int handOffs, bool odd, Stopwatch watch)
    {
        var yields = 0;
        while (true)
        {
            var turn = Volatile.Read(ref line[8]);
            if (turn >= handOffs)
            {
                return;
            }

            if (((turn & 1) == 1) == odd)
            {
                Volatile.Write(ref line[8], turn + 1);
                continue;
            }

            Thread.Yield();
            if (++yields % 4096 == 0 && watch.Elapsed > Limit)
            {
                // Ends the other thread's wait too: it sees the counter past the end.
                Volatile.Write(ref line[8], long.MaxValue);
                return;
            }
        }
    }
}
