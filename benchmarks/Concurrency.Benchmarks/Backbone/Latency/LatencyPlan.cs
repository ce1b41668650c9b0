using System.Globalization;
using Concurrency.Benchmarks.HandOff;

namespace Concurrency.Benchmarks.Backbone.Latency;

/// <summary>
/// What one launch does to each paced target, written once for paths and actors alike: warm up until the runtime has
/// settled on its code (the steady phase), measure the target's own maximum in the same shape (every message due at once,
/// posted one at a time, timed as in the paced runs), then offer it 10%, 50% and 90% of that maximum and the fixed
/// absolute rates (those at or below its maximum: above it a queue only grows, and the latency is the run's length).
/// </summary>
/// <param name="Seconds">How long each paced run offers its rate (its messages are capped at <see cref="MostMessages"/>).</param>
/// <param name="MaxRuns">Runs at the maximum rate; the median is the maximum.</param>
/// <param name="MaxMessages">Messages per run at the maximum rate.</param>
/// <param name="WarmupLeast">The least time the warm-up runs, if the code has settled by then.</param>
/// <param name="WarmupMost">The most time the warm-up runs.</param>
internal sealed record LatencyPlan(double Seconds, int MaxRuns, int MaxMessages, TimeSpan WarmupLeast, TimeSpan WarmupMost)
{
    /// <summary>The most messages one paced run offers, whatever its rate and length (memory for the actors' tokens).</summary>
    public const int MostMessages = 1 << 21;

    /// <summary>The fewest messages one paced run offers, however low its rate.</summary>
    public const int FewestMessages = 100;

    /// <summary>The loads relative to the target's own maximum.</summary>
    public static readonly IReadOnlyList<double> Fractions = [0.1, 0.5, 0.9];

    /// <summary>The absolute rates every target is offered (those at or below its maximum), so paths compare at the same load.</summary>
    public static readonly IReadOnlyList<double> AbsoluteRates = [1_000, 10_000, 100_000, 1_000_000];

    public static LatencyPlan Full { get; } = new(2, 3, 8 * PacedPath.MaxBlock, TimeSpan.FromSeconds(3), TimeSpan.FromSeconds(20));

    public static LatencyPlan Quick { get; } = new(0.25, 1, PacedPath.MaxBlock, TimeSpan.Zero, TimeSpan.FromSeconds(1));

    /// <summary>Every load a target is offered, in table order: its label ("50%", "10,000 msg/s") and its rate at a maximum.</summary>
    public static IEnumerable<(string Load, Func<double, double> Rate)> Loads
        => Fractions.Select(f => (string.Create(CultureInfo.InvariantCulture, $"{f:0%}"), (Func<double, double>)(max => f * max)))
            .Concat(AbsoluteRates.Select(r => (AtRate(r), (Func<double, double>)(_ => r))));

    /// <summary>The label of an absolute rate's load ("10,000 msg/s"), as the result sets file its figures under.</summary>
    public static string AtRate(double rate) => string.Create(CultureInfo.InvariantCulture, $"{rate:N0} msg/s");

    /// <summary>Measures one target through the whole plan.</summary>
    public ScenarioLatency Measure(string scenario, string contender, ContenderFamily family, IPacedTarget target, Action<string> progress)
    {
        ArgumentNullException.ThrowIfNull(target);
        ArgumentNullException.ThrowIfNull(progress);
        // Runs at the maximum rate until the runtime has settled on the target's code.
        new Warmup(WarmupLeast, WarmupMost).Run(() => target.Run(MaxMessages, Schedule.AllNow()));
        var maxima = new List<double>();
        for (var run = 0; run < MaxRuns; run++)
        {
            var outcome = target.Run(MaxMessages, Schedule.AllNow());
            maxima.Add(MaxMessages / outcome.Seconds);
        }

        maxima.Sort();
        var max = maxima[maxima.Count / 2];
        var loads = new List<LoadLatency>();
        foreach (var (load, rateAt) in Loads)
        {
            var rate = rateAt(max);
            if (rate > max)
            {
                continue;
            }

            var messages = MessagesAt(rate);
            var latency = target.Run(messages, Schedule.At(rate)).Latency;
            loads.Add(new LoadLatency(load, rate, latency));
            progress(string.Create(CultureInfo.InvariantCulture, $"{scenario}, {contender} at {load}: p50 {LatencyDistribution.Format(latency.P50)} µs, p99 {LatencyDistribution.Format(latency.P99)} µs, max {LatencyDistribution.Format(latency.Max)} µs"));
        }

        return new ScenarioLatency(scenario, contender, family, max, loads);
    }

    /// <summary>
    /// The messages a run at <paramref name="rate"/> offers: <see cref="Seconds"/>' worth, at least
    /// <see cref="FewestMessages"/> and at most <see cref="MostMessages"/>, and past one block a whole number of blocks.
    /// </summary>
    public int MessagesAt(double rate)
    {
        var messages = (int)Math.Clamp(Math.Round(rate * Seconds), FewestMessages, MostMessages);
        return messages <= PacedPath.MaxBlock ? messages : (messages + PacedPath.MaxBlock - 1) / PacedPath.MaxBlock * PacedPath.MaxBlock;
    }
}
