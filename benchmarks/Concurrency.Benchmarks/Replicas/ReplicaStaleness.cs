using System.Buffers.Binary;

namespace Concurrency.Benchmarks.Replicas;

/// <summary>
/// Staleness from the counter records the replicas of one machine write (<c>replica --records</c>): for each identity a
/// replica recorded handing out (sampled every 100 µs), the time until every other replica's counter was at or past its
/// counter, from the first record there that shows it. Every process on the machine reads the same monotonic clock, so
/// the times compare; the records' resolution is the sampling interval.
/// </summary>
internal static class ReplicaStaleness
{
    /// <summary>One replica's records: timestamps (Stopwatch ticks) and counters, in the order written.</summary>
    internal sealed record Records(long[] Timestamps, long[] Counters, bool[] HandedOut);

    public static Records Read(string path)
    {
        var bytes = File.ReadAllBytes(path);
        var rows = bytes.Length / 17;
        var records = new Records(new long[rows], new long[rows], new bool[rows]);
        for (var i = 0; i < rows; i++)
        {
            var row = bytes.AsSpan(i * 17, 17);
            records.Timestamps[i] = BinaryPrimitives.ReadInt64LittleEndian(row);
            records.Counters[i] = BinaryPrimitives.ReadInt64LittleEndian(row[8..]);
            records.HandedOut[i] = row[16] == 1;
        }

        return records;
    }

    /// <summary>
    /// Each sampled hand-out's staleness in Stopwatch ticks (0 where every other replica was already past it), and how many
    /// hand-outs no other replica's records ever passed (the run ended first).
    /// </summary>
    /// <param name="replicas">Each replica's records.</param>
    /// <param name="from">Only hand-outs at or after this timestamp count (the measured run's start: the warm-up is apart).</param>
    /// <param name="until">Only hand-outs before this timestamp count.</param>
    public static (List<long> Ticks, int NeverPassed) Measure(IReadOnlyList<Records> replicas, long from = long.MinValue, long until = long.MaxValue)
    {
        var result = new List<long>();
        var never = 0;
        // A replica's counter only rises, so its records' counters are sorted: the running maximum makes that exact.
        var maxima = replicas.Select(r => RunningMaximum(r.Counters)).ToArray();
        for (var r = 0; r < replicas.Count; r++)
        {
            var own = replicas[r];
            for (var i = 0; i < own.Counters.Length; i++)
            {
                if (!own.HandedOut[i] || own.Timestamps[i] < from || own.Timestamps[i] >= until)
                {
                    continue;
                }

                var (at, counter) = (own.Timestamps[i], own.Counters[i]);
                var latest = at;
                var passed = true;
                for (var s = 0; s < replicas.Count && passed; s++)
                {
                    if (s == r)
                    {
                        continue;
                    }

                    var first = FirstAtLeast(maxima[s], counter);
                    if (first < 0)
                    {
                        passed = false;
                    }
                    else
                    {
                        latest = Math.Max(latest, replicas[s].Timestamps[first]);
                    }
                }

                if (passed)
                {
                    result.Add(latest - at);
                }
                else
                {
                    never++;
                }
            }
        }

        return (result, never);
    }

    private static long[] RunningMaximum(long[] counters)
    {
        var maxima = new long[counters.Length];
        var max = long.MinValue;
        for (var i = 0; i < counters.Length; i++)
        {
            max = Math.Max(max, counters[i]);
            maxima[i] = max;
        }

        return maxima;
    }

    // The first index whose value is at least `counter`, or -1.
    private static int FirstAtLeast(long[] sorted, long counter)
    {
        var (low, high) = (0, sorted.Length);
        while (low < high)
        {
            var middle = (low + high) >>> 1;
            if (sorted[middle] >= counter)
            {
                high = middle;
            }
            else
            {
                low = middle + 1;
            }
        }

        return low < sorted.Length ? low : -1;
    }
}
