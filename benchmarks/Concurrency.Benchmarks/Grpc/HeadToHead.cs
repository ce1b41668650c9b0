using Concurrency.Benchmarks.Lab;

namespace Concurrency.Benchmarks.Grpc;

/// <summary>
/// A ratio measured head to head: rounds in which each contender runs once, back to back, the ratio taken within each
/// round. Rows measured a minute apart drift with the machine (on a time-sliced VM the same run moves by a third within
/// a minute); contenders a second apart see the same machine, so the ratio of a round moves much less than its rates.
/// </summary>
internal static class HeadToHead
{
    /// <summary>One contender: a label for progress, a run of N messages, and N (sized to about the lab's run length).</summary>
    public readonly record struct Contender(string Label, int Messages, Func<int, Task<PeerRunResult>> Run);

    /// <summary>
    /// Runs <paramref name="rounds"/> rounds of every contender, the order rotated each round so that no contender always
    /// runs first (after an idle gap) or right after the same neighbour.
    /// </summary>
    /// <returns>Per contender (in the order given), its rate in each round (in round order).</returns>
    public static double[][] Run(IReadOnlyList<Contender> contenders, int rounds, Action<int, string> progress)
    {
        ArgumentNullException.ThrowIfNull(contenders);
        ArgumentNullException.ThrowIfNull(progress);
        ArgumentOutOfRangeException.ThrowIfLessThan(rounds, 1);
        var rates = contenders.Select(_ => new double[rounds]).ToArray();
        for (var round = 0; round < rounds; round++)
        {
            foreach (var index in Order(contenders.Count, round))
            {
                var contender = contenders[index];
                progress(round, contender.Label);
                rates[index][round] = contender.Run(contender.Messages).GetAwaiter().GetResult().MessagesPerSecond;
            }
        }

        return rates;
    }

    /// <summary>The order of round <paramref name="round"/>: the contenders rotated by the round's number.</summary>
    public static IEnumerable<int> Order(int count, int round)
        => Enumerable.Range(0, count).Select(k => (k + round) % count);

    /// <summary>The ratio of <paramref name="top"/> to <paramref name="bottom"/> within each round: median, lowest and highest round.</summary>
    public static LabSample Ratio(IReadOnlyList<double> top, IReadOnlyList<double> bottom)
    {
        ArgumentNullException.ThrowIfNull(top);
        ArgumentNullException.ThrowIfNull(bottom);
        if (top.Count != bottom.Count)
        {
            throw new ArgumentException("Both sides need a rate for every round.", nameof(bottom));
        }

        return LabSample.Of([.. top.Select((rate, round) => rate / bottom[round])]);
    }
}
