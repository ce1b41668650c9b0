using System.Globalization;
using System.Text;
using System.Text.RegularExpressions;
using Concurrency.Benchmarks.Actors;
using Concurrency.Benchmarks.Backbone.Latency;
using Concurrency.Benchmarks.HandOff;
using Concurrency.Benchmarks.HandOff.Shapes;
using Concurrency.Benchmarks.Topologies;
using Concurrency.Messaging.Pipes;

namespace Concurrency.Benchmarks.Backbone.Reporting;

/// <summary>
/// "Which one should I use", written from the machine-readable results in the repository, never by hand: for each situation
/// the winner on the machine that measured it, by how much over the runner-up with the ratio's interval, and the runner-up.
/// A situation's candidates are ours and the peers' (not the ceilings, not a user's sample). Where the suite's steady state
/// (BenchmarkDotNet) and the plain program (<c>loop</c>) both measured a situation and pick different winners, the row says
/// so and shows both. A situation nothing has measured says which command measures it.
/// </summary>
public static partial class DecisionTable
{
    public const string Start = "<!-- decision-table:start -->";
    public const string End = "<!-- decision-table:end -->";

    /// <summary>One situation: what the figures that answer it are of, in which metric, on how many cores (null: the most measured).</summary>
    private sealed record Situation(string Name, string Metric, Func<Subject, bool> Matches, bool OneCore, string Command)
    {
        /// <summary>Gets which contenders the situation is between, by their name, where not every candidate (their registry says).</summary>
        public Func<string, bool> Among { get; init; } = _ => true;

        /// <summary>Gets the latency figure shown beside the winner and runner-up, or null for none.</summary>
        public LatencyFigure? Latency { get; init; }
    }

    /// <summary>
    /// A latency column's figure: from a scenario of the latency command, the named metric, or where that is null the p99 at
    /// the highest of the fixed offered rates (<see cref="LatencyPlan.AbsoluteRates"/>) that both contenders sustained (the
    /// command offers a rate only to a contender whose own maximum reaches it), so both are offered the same load.
    /// </summary>
    private sealed record LatencyFigure(string Scenario, string? Metric = null);

    private static readonly LatencyFigure HandOffP99 = new(LatencyCommand.HandOffScenario);

    private static readonly LoopShape ValuesSummed = new(ShapeMessage.Value, ShapeHandler.Trivial);

    private static readonly RingGame ThousandRingAllAtOnce = new(1_000, 1_000, RingPart.AllAtOnce);

    private static readonly Situation[] Situations =
    [
        new("One producer → one consumer (small objects, verifying handler, a long-lived pipe)", Measurement.MessagesPerSecond, IsHeadline, OneCore: false, "loop; --filter '*Headline*'") { Latency = HandOffP99 },
        new("One producer → one consumer (small objects, verifying handler, a long-lived pipe), one core", Measurement.MessagesPerSecond, IsHeadline, OneCore: true, "taskset -c 0 … loop; --cores 1 --filter '*Headline*'") { Latency = HandOffP99 },
        new("An Rx pipeline, a drop-in for ObserveOn (small objects, verifying handler, a long-lived pipe)", Measurement.MessagesPerSecond, IsHeadline, OneCore: false, "loop; --filter '*Headline*'") { Among = IsOperator, Latency = HandOffP99 },
        new("A burst into a fresh pipe, one producer (longs, `sum += m`)", Measurement.MessagesPerSecond, IsBurstOfValues, OneCore: false, "loop --shapes --phases burst --shape value,trivial"),
        new("A burst into a fresh pipe, one producer (longs, `sum += m`), one core", Measurement.MessagesPerSecond, IsBurstOfValues, OneCore: true, "taskset -c 0 … loop --shapes --phases burst --shape value,trivial"),
        new("Many producers → one consumer (2 → 1)", Measurement.MessagesPerSecond, s => s is Subject.InTopology { Topology: { Producers: 2, Consumers: 1 } }, OneCore: false, "--filter '*Topology*'"),
        new("Broadcast (1 → 2, each gets every message)", Measurement.MessagesPerSecond, s => s is Subject.InTopology t && t.Topology == new Topology(1, 2, PipeDistribution.Broadcast), OneCore: false, "--filter '*Topology*'"),
        new("Many mostly idle pipes (CPU of 100 idle ones)", Measurement.IdleCorePercent, s => s is Subject.IdlePipes, OneCore: false, "idle") { Latency = new(LatencyCommand.IdleScenario, LatencyReport.IdleMetric) },
        new("Actors, ping-pong (1 in flight)", Measurement.MessagesPerSecond, IsPingPongOneInFlight, OneCore: false, "actors; --filter '*ActorPingPong*'") { Latency = new(LatencyCommand.RequestReplyScenario) },
        new("Actors, ping-pong (1 in flight), one core", Measurement.MessagesPerSecond, IsPingPongOneInFlight, OneCore: true, "taskset -c 0 … actors; --cores 1 --filter '*ActorPingPong*'") { Latency = new(LatencyCommand.RequestReplyScenario) },
        new("Actors, a ring of 1,000, all tokens at once", Measurement.MessagesPerSecond, s => s is Subject.Ring { Phase: Phase.Steady } ring && ring.Game == ThousandRingAllAtOnce, OneCore: false, "actors; --filter '*ActorRing*'"),
        new("Across processes, request and reply (our gRPC peers: resent across reconnects, each answered once)", Measurement.MessagesPerSecond, s => s is Subject.CrossProcess, OneCore: false, "lab grpc"),
        new("Across machines, one way through NATS (Core: at most once, every loss reported; JetStream: stored, at least once, handed over once per consumer)", Measurement.MessagesPerSecond, s => s is Subject.ThroughNats, OneCore: false, "lab nats"),
        new("Unique identities across processes (3 servers; no coordination per request, or a strongly consistent store)", Measurement.IdentitiesPerSecond, s => s is Subject.Identities, OneCore: false, "lab replicas")
        {
            Among = Replicas.ReplicasExperiment.IsClusterOfThree,
            Latency = new(Subject.ReplicasScenario, Replicas.ReplicasExperiment.PacedP99),
        },
    ];

    private static bool IsHeadline(Subject subject) => subject is Subject.Headline { Phase: Phase.Steady, Capacity: null };

    private static bool IsBurstOfValues(Subject subject) => subject is Subject.Shape { Phase: Phase.Burst } shape && shape.LoopShape == ValuesSummed;

    private static bool IsPingPongOneInFlight(Subject subject) => subject is Subject.PingPong { Game.InFlight: 1, Phase: Phase.Steady };

    private static bool IsOperator(string contender) => HandOffContenders.Registry.TryFind(contender, out var c) && c.Build.IsOperator;

    /// <summary>The table in Markdown, from every result set found under <paramref name="resultsDirectory"/>.</summary>
    public static string Write(IEnumerable<(string Path, ResultSet Set)> sets, string resultsDirectory)
    {
        ArgumentNullException.ThrowIfNull(sets);
        var latest = Latest(sets, resultsDirectory);
        var text = new StringBuilder()
            .AppendLine("| situation | winner on the measuring machine | by (× the runner-up [interval]) | runner-up | latency: winner / runner-up (p99 at one offered rate both sustain) | measured by |")
            .AppendLine("|---|---|---|---|---|---|");
        foreach (var situation in Situations)
        {
            text.AppendLine(Row(situation, latest));
        }

        text.AppendLine()
            .AppendLine("Generated by `dotnet run -c Release --project benchmarks/Concurrency.Benchmarks -- report decide --readme README.md` from the results committed under `results/` (not the letters of head-to-head comparisons); do not edit by hand. "
                + "\"beyond noise\" means the winner's interval and the runner-up's do not overlap; otherwise the two cannot be told apart on this evidence. "
                + "A rate's interval is the lowest and highest launch (plain program) or the 95% bootstrap interval of the median (BenchmarkDotNet); the ratio's interval divides the ends (winner's low ÷ runner-up's high, winner's high ÷ runner-up's low). "
                + "\"suite\" is BenchmarkDotNet's steady state; \"plain program\" is `loop` or `actors`, a fresh process timing the game with a Stopwatch, in its steady phase (the burst rows: `loop --shapes`' burst phase). "
                + "Each hand-off row names its shape: the first three, one producer posting small preallocated objects into a pipe that lives through the run, to a handler that verifies count, checksum and order (the consumer's side is the heavier); the burst rows, `long` values to `sum += m` through a fresh pipe per burst in a warm process (the producer's post is the heavier), where the pool runner's rows count as contenders too. "
                + $"The latency column is `latency`'s p99 with the winner and the runner-up offered the same load: the highest of its fixed rates ({LatencyPlan.AtRate(LatencyPlan.AbsoluteRates.Min())} to {LatencyPlan.AtRate(LatencyPlan.AbsoluteRates.Max())}) that both sustained, named in the cell (idle pipes: the wake after a second idle; actors: request/reply), at the same core count, where it was measured for both (\"–\" where not).");
        return text.ToString();
    }

    /// <summary>Replaces the text between <see cref="Start"/> and <see cref="End"/> in <paramref name="readme"/>.</summary>
    /// <exception cref="InvalidDataException">The markers are missing or out of order.</exception>
    public static string Splice(string readme, string table)
    {
        ArgumentNullException.ThrowIfNull(readme);
        var start = readme.IndexOf(Start, StringComparison.Ordinal);
        var end = readme.IndexOf(End, StringComparison.Ordinal);
        if (start < 0 || end < start)
        {
            throw new InvalidDataException($"The README has no '{Start}' … '{End}' block for the decision table.");
        }

        return string.Concat(readme.AsSpan(0, start + Start.Length), Environment.NewLine, table, readme.AsSpan(end));
    }

    /// <summary>
    /// For each figure, the newest measurement, with where it came from and what it is of. A head-to-head comparison's
    /// letters (folders named <c>1-before</c>, <c>2-after</c>, <c>before-REV</c>...) are skipped: they measure two builds
    /// against each other, the older one included, with fewer launches than a published figure.
    /// </summary>
    private static List<Found> Latest(IEnumerable<(string Path, ResultSet Set)> sets, string resultsDirectory)
        => [.. ResultSet.Newest(sets.Where(s => !IsComparisonLetter(s.Path, resultsDirectory)).Select(s => (Source(s.Path, s.Set, resultsDirectory), s.Set))).Select(x => new Found(x.Measurement, x.Tag, Subject.Of(x.Measurement)))];

    private static bool IsComparisonLetter(string path, string resultsDirectory)
        => Path.GetRelativePath(resultsDirectory, path).Split('/', '\\').Any(segment => ComparisonLetter().IsMatch(segment));

    [GeneratedRegex(@"^(\d+-(before|after)|(before|after)-[0-9a-f]{7,40})$")]
    private static partial Regex ComparisonLetter();

    private static string Source(string path, ResultSet set, string resultsDirectory)
    {
        var relative = Path.GetRelativePath(resultsDirectory, path).Replace('\\', '/');
        var commit = set.Provenance.Commit.Length >= 7 ? set.Provenance.Commit[..7] : set.Provenance.Commit;
        return $"`{set.Command}` ({relative}, {commit}{(set.Provenance.Dirty ? "+" : string.Empty)})";
    }

    private static string Row(Situation situation, List<Found> latest)
    {
        var candidates = latest
            .Where(x => x.Measurement.Metric == situation.Metric && x.Subject is { } subject && situation.Matches(subject)
                && situation.Among(x.Measurement.Contender) && IsCandidate(x.Measurement.Family))
            .ToList();
        if (candidates.Count == 0)
        {
            return $"| {situation.Name} | not measured yet | | | | `{situation.Command}` |";
        }

        var cores = situation.OneCore ? 1 : candidates.Max(x => x.Measurement.Cores);
        var atCores = candidates.Where(x => x.Measurement.Cores == cores).ToList();
        if (atCores.Count < 2)
        {
            return $"| {situation.Name} | not measured yet at {Cores(cores)} | | | | `{situation.Command}` |";
        }

        // The suite and the plain program answer the same question in two ways: each picks its own winner.
        var answers = atCores.GroupBy(x => x.Subject!.TakenBy).Select(g => Decide(g.ToList())).Where(a => a is not null).Select(a => a!.Value).ToList();
        if (answers.Count == 0)
        {
            return $"| {situation.Name} | not measured yet at {Cores(cores)} | | | | `{situation.Command}` |";
        }

        var agree = answers.Select(a => a.Winner.Contender).Distinct().Count() == 1;
        string Each(Func<Answer, string> cell) => answers.Count == 1
            ? cell(answers[0])
            : string.Join("<br>", answers.Select(a => $"{Label(a)}: {cell(a)}"));
        var name = situation.Name + (situation.OneCore ? string.Empty : $", {Cores(cores)}") + (agree || answers.Count == 1 ? string.Empty : " — **the suite and the plain program pick different winners**");
        return $"| {name} | {Each(WinnerCell)} | {Each(a => a.By)} | {Each(a => a.RunnerUp.Contender)} | {Each(a => LatencyCell(situation, a, latest))} | {string.Join("<br>", answers.Select(a => a.Source))} |";
    }

    /// <summary>
    /// The winner's and runner-up's latency figure at the answer's core count, "12.5 µs [11.0–14.2] / 30.1 µs [..] at 100,000
    /// msg/s" (a fixed metric: without the rate), or "–" where it was not measured for both.
    /// </summary>
    private static string LatencyCell(Situation situation, Answer answer, List<Found> latest)
    {
        if (situation.Latency is not { } latency)
        {
            return "–";
        }

        Measurement? Of(Measurement rated, string metric) => latest
            .Select(x => x.Measurement)
            .FirstOrDefault(m => m.Scenario == latency.Scenario && m.Metric == metric && m.Cores == rated.Cores && m.Contender == rated.Contender);
        string? Pair(string metric, string suffix) => Of(answer.Winner, metric) is { } winner && Of(answer.RunnerUp, metric) is { } runnerUp
            ? $"{Microseconds(winner)} / {Microseconds(runnerUp)}{suffix}"
            : null;
        if (latency.Metric is { } fixedMetric)
        {
            return Pair(fixedMetric, string.Empty) ?? "–";
        }

        // The highest fixed rate both were offered: the command offers a rate only to a contender whose maximum reaches it.
        return LatencyPlan.AbsoluteRates.OrderDescending()
            .Select(rate => Pair(LatencyDistribution.Metric("p99", LatencyPlan.AtRate(rate)), $" at {LatencyPlan.AtRate(rate)}"))
            .FirstOrDefault(cell => cell is not null) ?? "–";
    }

    private static string Microseconds(Measurement m)
        => string.Create(CultureInfo.InvariantCulture, $"{LatencyDistribution.Format(m.Median)} µs [{LatencyDistribution.Format(m.Low)}–{LatencyDistribution.Format(m.High)}]");

    private static string WinnerCell(Answer answer) => $"**{answer.Winner.Contender}** ({Figure(answer.Winner)})";

    private static string Label(Answer answer) => answer.TakenBy switch
    {
        TakenBy.Suite => "suite",
        TakenBy.PlainProgram => "plain program",
        _ => answer.Winner.Scenario,
    };

    private static string Cores(int cores) => cores == 1 ? "1 core" : string.Create(CultureInfo.InvariantCulture, $"{cores} cores");

    private static bool IsCandidate(ContenderFamily family) => family is not (ContenderFamily.Ceiling or ContenderFamily.User);

    /// <summary>A figure found in the results: the newest measurement of it, the result set it came from, and what it is of (null: nothing asked about).</summary>
    private sealed record Found(Measurement Measurement, string Source, Subject? Subject);

    private readonly record struct Answer(Measurement Winner, Measurement RunnerUp, string By, string Source, TakenBy TakenBy);

    private static Answer? Decide(List<Found> measured)
    {
        if (measured.Count < 2)
        {
            return null;
        }

        var higher = measured[0].Measurement.HigherIsBetter;
        var ordered = higher
            ? measured.OrderByDescending(x => x.Measurement.Median).ToList()
            : measured.OrderBy(x => x.Measurement.Median).ToList();
        var (winner, runnerUp) = (ordered[0].Measurement, ordered[1].Measurement);
        // The ratio reads "the winner is N× better": a rate's quotient, or a cost's inverse quotient.
        var (point, low, high) = higher
            ? (winner.Median / runnerUp.Median, winner.Low / runnerUp.High, winner.High / runnerUp.Low)
            : (runnerUp.Median / winner.Median, runnerUp.Low / winner.High, runnerUp.High / winner.Low);
        // One value has no interval to compare: such a pair is never called beyond the noise.
        var verdict = winner.Low == winner.High || runnerUp.Low == runnerUp.High
            ? "one sample, no interval"
            : (higher ? winner.Low > runnerUp.High : winner.High < runnerUp.Low) ? "beyond noise" : "within noise";
        var by = string.Create(CultureInfo.InvariantCulture, $"{point:0.00}× [{Finite(low)}–{Finite(high)}] {verdict}");
        return new Answer(winner, runnerUp, by, ordered[0].Source, ordered[0].Subject!.TakenBy);
    }

    private static string Finite(double value) => double.IsFinite(value) ? value.ToString("0.00", CultureInfo.InvariantCulture) : "∞";

    private static string Figure(Measurement m) => m.Metric switch
    {
        Measurement.MessagesPerSecond => new Estimate(m.Median, m.Low, m.High).FormatRate() + " msg/s",
        Measurement.IdentitiesPerSecond => new Estimate(m.Median, m.Low, m.High).FormatRate() + " identities/s",
        _ => string.Create(CultureInfo.InvariantCulture, $"{m.Median:G3} {m.Metric}"),
    };
}
