namespace Concurrency.Benchmarks.Backbone.Lab;

/// <summary>
/// A ratio measured head to head: rounds in which each contender runs once, back to back, the ratio taken within each
/// round. Rows measured a minute apart drift with the machine (on a time-sliced VM the same run moves by a third within
/// a minute); contenders a second apart see the same machine, so the ratio of a round moves much less than its values.
/// </summary>
/// <remarks>
/// A run can leave work behind for the next (garbage in this process, a closing session in a peer's, pages to give back),
/// so the order matters: the rounds follow a balanced (Williams) design, in which every contender runs right after every other equally
/// often and first in equally many rounds, and this process collects its garbage before every run.
/// </remarks>
internal static class HeadToHead
{
    /// <summary>One contender: a label for progress, and one run of it that returns what it measured (a rate, a time).</summary>
    public readonly record struct Contender(string Label, Func<double> Measure);

    /// <summary>Runs <paramref name="repeats"/> times the rounds of <see cref="Design"/>, each contender once per round.</summary>
    /// <returns>Per contender (in the order given), its value in each round (in round order).</returns>
    public static double[][] Run(IReadOnlyList<Contender> contenders, int repeats, Action<int, int, string> progress)
    {
        ArgumentNullException.ThrowIfNull(contenders);
        ArgumentNullException.ThrowIfNull(progress);
        ArgumentOutOfRangeException.ThrowIfLessThan(repeats, 1);
        var design = Design(contenders.Count);
        var rounds = design.Length * repeats;
        var values = contenders.Select(_ => new double[rounds]).ToArray();
        for (var round = 0; round < rounds; round++)
        {
            foreach (var index in design[round % design.Length])
            {
                var contender = contenders[index];
                progress(round, rounds, contender.Label);
                CollectGarbage();
                values[index][round] = contender.Measure();
            }
        }

        return values;
    }

    /// <summary>
    /// The orders of a balanced design for <paramref name="count"/> contenders: each ordered pair of neighbours occurs
    /// equally often (once in <paramref name="count"/> rounds when it is even; twice in twice as many when it is odd, the
    /// rows then followed by their reverses), and each contender runs first equally often.
    /// </summary>
    public static int[][] Design(int count)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(count, 1);

        // The first row goes 0, 1, n-1, 2, n-2, ...; the others add the row's number to each entry.
        var first = new int[count];
        var (low, high) = (1, count - 1);
        for (var k = 1; k < count; k++)
        {
            first[k] = k % 2 == 1 ? low++ : high--;
        }

        var rows = Enumerable.Range(0, count).Select(row => first.Select(entry => (entry + row) % count).ToArray()).ToList();
        if (count % 2 == 1 && count > 1)
        {
            rows.AddRange([.. rows.Select(row => row.Reverse().ToArray())]);
        }

        return [.. rows];
    }

    /// <summary>A full, blocking, compacting collection, so that no run pays for the garbage of the one before it.</summary>
    public static void CollectGarbage()
    {
        GC.Collect(GC.MaxGeneration, GCCollectionMode.Forced, blocking: true, compacting: true);
        GC.WaitForPendingFinalizers();
    }

    /// <summary>The ratio of <paramref name="top"/> to <paramref name="bottom"/> within each round: median, lowest and highest round.</summary>
    public static LabSample Ratio(IReadOnlyList<double> top, IReadOnlyList<double> bottom) => LabSample.Of(Ratios(top, bottom));

    /// <summary>The ratio of <paramref name="top"/> to <paramref name="bottom"/> in each round, in round order.</summary>
    public static double[] Ratios(IReadOnlyList<double> top, IReadOnlyList<double> bottom)
    {
        ArgumentNullException.ThrowIfNull(top);
        ArgumentNullException.ThrowIfNull(bottom);
        if (top.Count != bottom.Count)
        {
            throw new ArgumentException("Both sides need a value for every round.", nameof(bottom));
        }

        return [.. top.Select((value, round) => value / bottom[round])];
    }
}
