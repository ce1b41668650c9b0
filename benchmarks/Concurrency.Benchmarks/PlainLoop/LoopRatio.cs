using System.Globalization;
using Concurrency.Benchmarks.Reporting;

namespace Concurrency.Benchmarks.PlainLoop;

/// <summary>
/// One of the speed goals measured head to head in one launch: the ratio of two paths' rates (or of the better of
/// two paths to a third) taken within each round of back-to-back runs, every round kept, and the goal it is held to.
/// </summary>
public sealed record LoopRatio(string Name, double Goal, IReadOnlyList<double> Rounds)
{
    /// <summary>
    /// Folds the launches' values of one ratio: "MEDIAN× [LOWEST, HIGHEST]", the median of the launches' median rounds with
    /// the lowest and highest of them (one launch: its median round with its lowest and highest round), and how many rounds
    /// of all launches reached the goal, "K of N".
    /// </summary>
    /// <exception cref="ArgumentException">No launch, or launches of different ratios.</exception>
    public static (string Ratio, string RoundsAtGoal) Summarize(IReadOnlyList<LoopRatio> launches)
    {
        ArgumentNullException.ThrowIfNull(launches);
        if (launches.Count == 0)
        {
            throw new ArgumentException("No launches.", nameof(launches));
        }

        if (launches.Any(l => l.Name != launches[0].Name || l.Goal != launches[0].Goal || l.Rounds.Count == 0))
        {
            throw new ArgumentException("The launches measured different ratios, or one measured no round.", nameof(launches));
        }

        List<double> values = launches.Count == 1
            ? [.. launches[0].Rounds]
            : [.. launches.Select(l => Bootstrap.MedianOf([.. l.Rounds]))];
        var median = Bootstrap.MedianOf(values); // sorts the list
        var reached = launches.Sum(l => l.Rounds.Count(r => r >= l.Goal));
        var rounds = launches.Sum(l => l.Rounds.Count);
        return (
            LoopSummary.Ratio(median, values[0], values[^1]),
            string.Create(CultureInfo.InvariantCulture, $"{reached} of {rounds}"));
    }
}
