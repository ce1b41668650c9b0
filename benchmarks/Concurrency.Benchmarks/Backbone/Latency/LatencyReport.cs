using System.Globalization;
using System.Text;
using Concurrency.Benchmarks.Backbone.Reporting;
using Concurrency.Benchmarks.CrossProcess;

namespace Concurrency.Benchmarks.Backbone.Latency;

/// <summary>
/// LATENCY-&lt;cores&gt;.md from the launches: per scenario a percentile-distribution chart at 50% and 90% load and a table
/// (each contender's maximum, then its percentiles at each load), the idle wakes, and the result set beside it. Each figure
/// is the median of the launches' figures [lowest, highest launch]; one launch gives its own figure.
/// </summary>
internal static class LatencyReport
{
    /// <summary>The metric an idle wake is filed under.</summary>
    public const string IdleMetric = "µs to handle one message after idle";

    private static readonly (string Scenario, string Title, string Slug)[] Scenarios =
    [
        (LatencyCommand.HandOffScenario, "One producer → one consumer (the hand-off paths)", "hand-off"),
        (LatencyCommand.ToldScenario, "Actors: one actor told by one sender", "actor-told"),
        (LatencyCommand.RequestReplyScenario, "Actors: request/reply (a request to one actor, its reply to another, timed there; not the bounded mailboxes, which refuse a reply told into them from inside a turn when full)", "actor-request-reply"),
        (LatencyCommand.GrpcScenario, string.Create(CultureInfo.InvariantCulture, $"gRPC request/reply: our PeerClient to an echo PeerServer in this process over loopback (buffer {GrpcContenders.Buffer}, 8 B payloads, at most {PacedGrpc.MostInFlight:N0} in flight; each request timed from when it was due to when its reply reached the caller)"), "grpc-request-reply"),
    ];

    private static readonly string[] ChartLoads = ["50%", "90%"];

    public static void Write(IReadOnlyList<LatencyLaunch> launches, LatencySettings settings, Experiment experiment)
    {
        var cores = experiment.Cores;
        var outDirectory = experiment.OutDirectory;
        Directory.CreateDirectory(outDirectory);
        var measurements = new List<Measurement>();
        var timestamp = Measurement.Of("latency", "Stopwatch.GetTimestamp", ContenderFamily.Ceiling, string.Empty, Phase.Steady, cores, "ns per timestamp", [.. launches.Select(l => l.TimestampNanoseconds)]);
        var text = experiment.Header(
            "Latency under load",
            string.Create(CultureInfo.InvariantCulture, $"Open loop, corrected for coordinated omission (the wrk2 method): one producer offers messages on a fixed schedule, message i due at start + i ÷ rate, posting each when it is due (spinning on the clock between messages; on one core yielding instead) or at once when it is late; each message is timed from when it was **due** to when its consumer handled it, so a stall delays, and shows in, every message behind it. One HdrHistogram per consumer (1 ns to 1 h, 3 significant digits), merged at the end of each run. Each target first warms up until its code has settled, then its own maximum is measured in the same shape (every message due at once, posted one at a time, timed alike; the median of {(settings.Quick ? LatencyPlan.Quick : LatencyPlan.Full).MaxRuns} runs), then it is offered {string.Join(", ", LatencyPlan.Loads.Select(l => l.Load))} (the absolute rates only where at or below its maximum), each for {settings.Seconds:0.##} s (at least {LatencyPlan.FewestMessages:N0} and at most {LatencyPlan.MostMessages:N0} messages). Every run is verified: count, checksum and order at the consumer (at every actor for the actors; for gRPC, each reply carries its request's number, and the count and sum). {Spread(launches.Count)}{Environment.NewLine}{Environment.NewLine}Taking a timestamp (`Stopwatch.GetTimestamp`) costs {Cell(timestamp, v => v.ToString("0.0", CultureInfo.InvariantCulture))} ns here; every timed message pays at least two (the producer's due check and the consumer's record), so figures within a few of that are the clock's."),
            settings.Quick ? "smoke-test sizes, short runs, one launch" : null);
        foreach (var (scenario, title, slug) in Scenarios)
        {
            var targets = launches[0].Loaded.Where(s => s.Scenario == scenario).ToList();
            if (targets.Count == 0)
            {
                continue;
            }

            text.AppendLine(CultureInfo.InvariantCulture, $"## {title}").AppendLine();
            foreach (var load in ChartLoads)
            {
                var file = string.Create(CultureInfo.InvariantCulture, $"latency-{cores}-{slug}-{load.TrimEnd('%')}.png");
                var series = targets
                    .Select(t => (t.Contender, t.Family, Curve: MedianCurve(launches, scenario, t.Contender, load)))
                    .Where(s => s.Curve is not null)
                    .Select(s => (s.Contender, s.Family, (IReadOnlyList<double>)s.Curve!))
                    .ToList();
                LatencyChart.Distribution(Path.Combine(outDirectory, file), $"{title}: latency at {load} of each one's maximum, {Experiment.CoreCount(cores)}", series);
                if (series.Count > 0)
                {
                    text.AppendLine(CultureInfo.InvariantCulture, $"![{title} at {load} load]({file})").AppendLine();
                }
            }

            text.AppendLine("| contender | load | offered msg/s | p50 µs | p90 µs | p99 µs | p99.9 µs | p99.99 µs | max µs |")
                .AppendLine("|---|---|---:|---:|---:|---:|---:|---:|---:|");
            foreach (var target in targets)
            {
                var max = Fold(launches, scenario, target, Measurement.MessagesPerSecond, l => l.MaxRate);
                measurements.Add(max);
                text.AppendLine(CultureInfo.InvariantCulture, $"| {target.Contender} | its maximum | {Cell(max, Rate)} | | | | | | |");
                foreach (var (load, _) in LatencyPlan.Loads)
                {
                    if (!target.Loads.Any(l => l.Load == load))
                    {
                        continue;
                    }

                    var offered = Fold(launches, scenario, target, "offered msg/s at " + load, l => l.Loads.SingleOrDefault(x => x.Load == load)?.Rate);
                    var figures = LatencyDistribution.Figures
                        .Select(f => Fold(launches, scenario, target, LatencyDistribution.Metric(f.Name, load), l => l.Loads.SingleOrDefault(x => x.Load == load)?.Latency is { } d ? f.Of(d) : null))
                        .ToList();
                    measurements.AddRange(figures);
                    text.AppendLine(CultureInfo.InvariantCulture, $"| {target.Contender} | {load} | {Cell(offered, Rate)} | {string.Join(" | ", figures.Select(f => Cell(f, LatencyDistribution.Format)))} |");
                }
            }

            text.AppendLine();
        }

        WriteIdle(launches, settings, cores, text, measurements);
        measurements.Add(timestamp);
        experiment.Write(string.Create(CultureInfo.InvariantCulture, $"LATENCY-{cores}.md"), text, measurements);
    }

    private static void WriteIdle(IReadOnlyList<LatencyLaunch> launches, LatencySettings settings, int cores, StringBuilder text, List<Measurement> measurements)
    {
        if (launches[0].Idle.Count == 0)
        {
            return;
        }

        text.AppendLine("## Idle to first message")
            .AppendLine()
            .AppendLine(CultureInfo.InvariantCulture, $"Each pipe (under each runner), operator, actor and gRPC client handled one message, then sat idle for {settings.IdleSeconds:0.##} s, then was handed one message: the time from the hand-over to the handler, the median of {(settings.Quick ? 1 : 3)} such wakes per launch. A consumer that parks pays the wake-up of its thread; one on the pool pays for a pool thread to pick it up. Pipes run on a dedicated thread unless named \"pool runner\"; actors run on their system's dispatcher; a gRPC client's wake is one request's round trip to the echo server in this process.")
            .AppendLine()
            .AppendLine(CultureInfo.InvariantCulture, $"| contender | µs after {settings.IdleSeconds:0.##} s idle |")
            .AppendLine("|---|---:|");
        foreach (var wake in launches[0].Idle)
        {
            var values = launches.Select(l => l.Idle.Single(w => w.Contender == wake.Contender && w.Scenario == wake.Scenario).Microseconds).Select(w => Bootstrap.MedianOf([.. w])).ToList();
            var figure = Measurement.Of(wake.Scenario, wake.Contender, wake.Family, string.Empty, Phase.Steady, cores, IdleMetric, values);
            measurements.Add(figure);
            text.AppendLine(CultureInfo.InvariantCulture, $"| {wake.Contender} | {Cell(figure, LatencyDistribution.Format)} |");
        }

        text.AppendLine();
    }

    /// <summary>A target's figure in every launch that has it, folded into one measurement.</summary>
    private static Measurement Fold(IReadOnlyList<LatencyLaunch> launches, string scenario, ScenarioLatency target, string metric, Func<ScenarioLatency, double?> figure)
    {
        var values = launches
            .Select(l => l.Loaded.SingleOrDefault(s => s.Scenario == scenario && s.Contender == target.Contender))
            .Select(s => s is null ? null : figure(s))
            .OfType<double>()
            .ToList();
        return Measurement.Of(scenario, target.Contender, target.Family, string.Empty, Phase.Steady, Environment.ProcessorCount, metric, values);
    }

    /// <summary>The contender's curve at a load, point by point the median of the launches that ran it; null where none did.</summary>
    private static double[]? MedianCurve(IReadOnlyList<LatencyLaunch> launches, string scenario, string contender, string load)
    {
        var curves = launches
            .Select(l => l.Loaded.SingleOrDefault(s => s.Scenario == scenario && s.Contender == contender)?.Loads.SingleOrDefault(x => x.Load == load)?.Latency.Curve)
            .OfType<IReadOnlyList<double>>()
            .ToList();
        return curves.Count == 0 ? null : [.. Enumerable.Range(0, LatencyDistribution.CurveLevels.Count).Select(i => Bootstrap.MedianOf([.. curves.Select(c => c[i])]))];
    }

    private static string Cell(Measurement m, Func<double, string> format)
        => m.Samples.Count > 1 ? $"{format(m.Median)} [{format(m.Low)}–{format(m.High)}]" : format(m.Median);

    private static string Rate(double rate) => rate.ToString("N0", CultureInfo.InvariantCulture);

    private static string Spread(int launches) => launches == 1
        ? "One launch: each figure is that launch's."
        : string.Create(CultureInfo.InvariantCulture, $"Each of {launches} launches is a fresh process; each figure is the median of the launches' figures [lowest, highest launch].");
}
