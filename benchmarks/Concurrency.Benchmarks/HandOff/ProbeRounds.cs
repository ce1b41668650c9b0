
namespace Concurrency.Benchmarks.HandOff;

/// <summary>How the loop's machine probes (<see cref="CoreRoundTrip"/>, <see cref="ThreadHandOff"/>) turn rounds into one figure.</summary>
internal static class ProbeRounds
{
    /// <summary>The median of three rounds; null as soon as one round gives no figure (it ran past its limit).</summary>
    public static double? MedianOfThree(Func<double?> round)
    {
        var rounds = new double[3];
        for (var i = 0; i < rounds.Length; i++)
        {
            if (round() is not { } figure)
            {
                return null;
            }

            rounds[i] = figure;
        }

        Array.Sort(rounds);
        return rounds[1];
    }
}
