using System.Globalization;
using Concurrency.Benchmarks.Backbone.Reporting;

namespace Concurrency.Benchmarks.Backbone.Contenders;

/// <summary>When in a process's life a figure was taken.</summary>
public enum Phase
{
    /// <summary>The first runs of a fresh process (the first 10 M messages, or the first runs of a game in a fresh system).</summary>
    Cold,

    /// <summary>After the process has run the same game long enough for the runtime to settle on its code.</summary>
    Steady,

    /// <summary>
    /// A warm process that builds a fresh path for each burst, posts the burst into it as fast as one thread can, completes
    /// it and waits (a batch job, a request that fans out, a test): the post and the path's start and end decide the speed.
    /// </summary>
    Burst,
}

/// <summary>
/// A speed goal, written once and judged one way wherever it is measured: our contenders (the best of them, where several
/// are named) against the references (the best of them: "the better of Akka.NET and Proto.Actor"), as a ratio of rates, in one shape, phase and core count, with a threshold. The decision
/// rule: the goal is met when the median of at least <see cref="MinLaunches"/> launches' medians reaches the threshold, in
/// two runs of the command (a verdict speaks for one run); where <see cref="SpreadLimit"/> is set, our launches may differ by
/// at most that factor. A yardstick is shown beside the goals for what it says about them, and never judged.
/// </summary>
/// <param name="Name">What the table calls it.</param>
/// <param name="Ours">Our contenders' names; the ratio takes the best of them in each round.</param>
/// <param name="Versus">The references' names; the ratio takes the best of them in each round.</param>
/// <param name="Threshold">The ratio the goal asks for.</param>
public sealed record Goal(string Name, IReadOnlyList<string> Ours, IReadOnlyList<string> Versus, double Threshold)
{
    /// <summary>Gets the message and handler shape the goal is about ("value messages, trivial handler").</summary>
    public string Shape { get; init; } = string.Empty;

    public Phase Phase { get; init; } = Phase.Steady;

    /// <summary>Gets the core count the goal is held at, or null for every core count measured.</summary>
    public int? Cores { get; init; }

    /// <summary>Gets how many launches (fresh processes) a verdict needs.</summary>
    public int MinLaunches { get; init; } = 5;

    /// <summary>Gets the most our launches may differ (highest ÷ lowest), or null for no limit.</summary>
    public double? SpreadLimit { get; init; }

    /// <summary>Gets whether this is a yardstick shown for context, not a goal.</summary>
    public bool IsYardstick { get; init; }

    /// <summary>Gets every contender the goal names, ours first.</summary>
    public IEnumerable<string> Contenders => Ours.Concat(Versus);

    /// <summary>The goal's ratio in one round, from each contender's rate in that round.</summary>
    public double RatioOf(Func<string, double> rate)
    {
        ArgumentNullException.ThrowIfNull(rate);
        return Ours.Max(rate) / Versus.Max(rate);
    }

    /// <summary>Judges the ratios of a run: per launch, the goal's ratio in each of its rounds (one value where a launch has one).</summary>
    /// <exception cref="ArgumentException">No launch, or a launch with no round.</exception>
    public GoalVerdict Judge(IReadOnlyList<IReadOnlyList<double>> launches)
    {
        ArgumentNullException.ThrowIfNull(launches);
        if (launches.Count == 0 || launches.Any(l => l.Count == 0))
        {
            throw new ArgumentException("A goal is judged on at least one launch of at least one round.", nameof(launches));
        }

        // One launch: its median round with its lowest and highest round; several: the median launch with the lowest and highest.
        List<double> values = launches.Count == 1 ? [.. launches[0]] : [.. launches.Select(l => Bootstrap.MedianOf([.. l]))];
        var median = Bootstrap.MedianOf(values); // sorts the list
        var atGoal = launches.Sum(l => l.Count(r => r >= Threshold));
        return Judge(median, values[0], values[^1], launches.Count) with { RoundsAtGoal = atGoal, Rounds = launches.Sum(l => l.Count) };
    }

    /// <summary>Judges a ratio already folded into a median with its lowest and highest launch.</summary>
    public GoalVerdict Judge(double median, double lowest, double highest, int launches)
    {
        string verdict;
        if (IsYardstick)
        {
            verdict = "yardstick";
        }
        else if (median < Threshold)
        {
            verdict = "not met";
        }
        else if (launches < MinLaunches)
        {
            verdict = string.Create(CultureInfo.InvariantCulture, $"median at goal, {launches} of {MinLaunches} launches");
        }
        else
        {
            // One launch (a goal that asks for one): its lowest is its lowest round, or the low end of its ratio's range.
            verdict = lowest < Threshold ? "met (median)" : launches == 1 ? "met, even the lowest" : "met, every launch";
        }

        if (SpreadLimit is { } limit && lowest > 0 && highest / lowest > limit)
        {
            verdict += string.Create(CultureInfo.InvariantCulture, $"; launches spread {highest / lowest:0.0}× > {limit:0.0}×");
        }

        return new GoalVerdict(this, median, lowest, highest, launches, verdict);
    }
}

/// <summary>A goal's ratio in one run of a command: the median with the lowest and highest, and the verdict.</summary>
public sealed record GoalVerdict(Goal Goal, double Median, double Lowest, double Highest, int Launches, string Verdict)
{
    /// <summary>Gets how many rounds (of every launch) reached the threshold, where the ratio was taken per round.</summary>
    public int RoundsAtGoal { get; init; }

    /// <summary>Gets how many rounds the ratio was taken in (0 where it was not taken per round).</summary>
    public int Rounds { get; init; }

    /// <summary>Gets whether the goal is met in this run.</summary>
    public bool Met => Verdict.StartsWith("met", StringComparison.Ordinal);

    /// <summary>Gets the ratio as the tables print it: "1.23× [1.01–1.45]".</summary>
    public string Ratio => string.Create(CultureInfo.InvariantCulture, $"{Median:0.00}× [{Lowest:0.00}–{Highest:0.00}]");

    /// <summary>Gets "K of N" rounds at goal, or "–".</summary>
    public string AtGoal => Rounds == 0 ? "–" : string.Create(CultureInfo.InvariantCulture, $"{RoundsAtGoal} of {Rounds}");
}
