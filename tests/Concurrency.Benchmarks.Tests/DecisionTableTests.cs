using Concurrency.Benchmarks.Backbone.Reporting;

namespace Concurrency.Benchmarks.Tests;

public sealed class DecisionTableTests : IDisposable
{
    private readonly ResultsFixture _results = new();

    private string Place => _results.Results;

    public void Dispose() => _results.Dispose();

    /// <summary>
    /// A game both the suite and the plain program play: the row it answers, each side's scenario and conditions (the
    /// suite's before the games had one name too), and two of its contenders.
    /// </summary>
    public sealed record Game(string Row, string Suite, string SuiteConditions, string Plain, string PlainConditions, string Ours, string Peer, ContenderFamily PeerFamily);

    private static readonly Dictionary<string, Game> Games = new()
    {
        ["hand-off"] = new(HandOff, "HeadlineBenchmarks", string.Empty, "loop", string.Empty, "Ring", "DataflowActionBlock", ContenderFamily.Dataflow),
        ["ping-pong"] = new(PingPong, "ActorPingPongBenchmarks", "ping-pong, 1 in flight", "actors", "ping-pong, 1 in flight", "BatchDrainMailbox", "ProtoActor", ContenderFamily.ActorSystem),
        ["ping-pong, the suite's old name"] = new(PingPong, "ActorPingPongBenchmarks", "InFlight=1", "actors", "ping-pong, 1 in flight", "BatchDrainMailbox", "AkkaNet", ContenderFamily.ActorSystem),
        ["ring"] = new(Ring, "ActorRingBenchmarks", "ring N=1,000 M=1,000, all tokens at once", "actors", "ring N=1,000 M=1,000, all tokens at once", "BatchDrainMailbox", "ProtoActor", ContenderFamily.ActorSystem),
        ["ring, the suite's old name"] = new(Ring, "ActorRingBenchmarks", "Size=1000x1000, Part=AllAtOnce", "actors", "ring N=1,000 M=1,000, all tokens at once", "AsyncReceive", "AkkaNet", ContenderFamily.ActorSystem),
    };

    public static TheoryData<string> GameNames() => [.. Games.Keys];

    [Theory]
    [MemberData(nameof(GameNames))]
    public void Write_SuiteAndPlainProgramAgree_OneRowWithBothAnswersEachWithItsRatiosInterval(string name)
    {
        var game = Games[name];
        var sets = new[]
        {
            Set(game.Plain, Rate(game.Plain, game.Ours, ContenderFamily.Ours, 2, 130e6, 120e6, 140e6, game.PlainConditions), Rate(game.Plain, game.Peer, game.PeerFamily, 2, 100e6, 95e6, 105e6, game.PlainConditions)),
            Set("report", Rate(game.Suite, game.Ours, ContenderFamily.Ours, 2, 300e6, 290e6, 310e6, game.SuiteConditions), Rate(game.Suite, game.Peer, game.PeerFamily, 2, 150e6, 140e6, 160e6, game.SuiteConditions)),
        };

        var row = Line(DecisionTable.Write(sets, Place), game.Row);

        // Both answers are in the one row, each with its own figures and ratio, and the row does not say they differ.
        Assert.DoesNotContain("pick different winners", row, StringComparison.Ordinal);
        Assert.Contains($"plain program: **{game.Ours}** (130 M [120–140] msg/s)", row, StringComparison.Ordinal);
        Assert.Contains($"suite: **{game.Ours}** (300 M [290–310] msg/s)", row, StringComparison.Ordinal);
        Assert.Contains("plain program: 1.30× [1.14–1.47] beyond noise", row, StringComparison.Ordinal); // 120 ÷ 105, 140 ÷ 95
        Assert.Contains("suite: 2.00× [1.81–2.21] beyond noise", row, StringComparison.Ordinal); // 290 ÷ 160, 310 ÷ 140
        Assert.Contains($"plain program: {game.Peer}", row, StringComparison.Ordinal);
        Assert.Contains($"suite: {game.Peer}", row, StringComparison.Ordinal);
    }

    [Fact]
    public void Write_ACeilingFastest_IsNeverTheWinnerNorTheRunnerUp()
    {
        var sets = new[] { Loop(Rate("loop", "RawRing", ContenderFamily.Ceiling, 2, 900e6, 800e6, 1000e6)) };

        var row = HandOffRow(sets);

        Assert.Contains("**Ring**", row, StringComparison.Ordinal);
        Assert.DoesNotContain("RawRing", row, StringComparison.Ordinal); // a ceiling is a yardstick, never a winner
    }

    [Fact]
    public void Write_RxPipeline_OnlyTheOperatorsTheRegistryNamesCompete()
    {
        var sets = new[] { Loop(Rate("loop", "ObserveOnRing", ContenderFamily.Ours, 2, 60e6, 55e6, 65e6), Rate("loop", "RxObserveOnTaskPool", ContenderFamily.Rx, 2, 20e6, 18e6, 22e6)) };

        var row = Line(DecisionTable.Write(sets, Place), "An Rx pipeline, a drop-in for ObserveOn");

        // The faster pipe (Ring) and ActionBlock are no drop-ins for ObserveOn: the winner and runner-up are operators.
        var cells = row.Split('|');
        Assert.StartsWith(" **ObserveOnRing** (60.0 M", cells[2], StringComparison.Ordinal);
        Assert.Equal("RxObserveOnTaskPool", cells[4].Trim());
    }

    [Fact]
    public void Write_Topologies_EachRowTakesTheCasesOfItsOwnTopology()
    {
        Measurement Case(string name, double median) => Rate("TopologyBenchmarks", name, Families.Of(name), 2, median, median * 0.9, median * 1.1);
        var sets = new[] { Set("report", Case("BatchDrainQueue 2->1", 25e6), Case("Channel 2->1", 8e6), Case("Ring 1->2 broadcast", 22e6), Case("BatchDrainQueue 1->2 broadcast", 6e6), Case("BatchDrainQueue 1->2 work-sharing", 90e6), Case("Channel 4->1", 99e6)) };

        var table = DecisionTable.Write(sets, Place);

        Assert.Contains("| **BatchDrainQueue 2->1** (25.0 M", Line(table, "Many producers → one consumer (2 → 1)"), StringComparison.Ordinal);
        Assert.Contains("| Channel 2->1 |", Line(table, "Many producers → one consumer (2 → 1)"), StringComparison.Ordinal);
        Assert.Contains("| **Ring 1->2 broadcast** (22.0 M", Line(table, "Broadcast (1 → 2"), StringComparison.Ordinal);
        Assert.Contains("| BatchDrainQueue 1->2 broadcast |", Line(table, "Broadcast (1 → 2"), StringComparison.Ordinal);
    }

    [Fact]
    public void Write_SuiteAndPlainProgramPickDifferentWinners_TheRowSaysSoAndShowsBoth()
    {
        var sets = new[]
        {
            Set("loop", Rate("loop", "Ring", ContenderFamily.Ours, 2, 100e6, 90e6, 110e6), Rate("loop", "DataflowActionBlock", ContenderFamily.Dataflow, 2, 200e6, 190e6, 210e6)),
            Set("report", Rate("HeadlineBenchmarks", "Ring", ContenderFamily.Ours, 2, 300e6, 290e6, 310e6), Rate("HeadlineBenchmarks", "DataflowActionBlock", ContenderFamily.Dataflow, 2, 150e6, 140e6, 160e6)),
        };

        var row = HandOffRow(sets);

        Assert.Contains("pick different winners", row, StringComparison.Ordinal);
        Assert.Contains("suite: **Ring**", row, StringComparison.Ordinal);
        Assert.Contains("plain program: **DataflowActionBlock**", row, StringComparison.Ordinal);
    }

    [Fact]
    public void Write_ACost_TheLowestWins_AndOverlappingIntervalsAreWithinNoise()
    {
        var sets = new[]
        {
            Set("idle", Cost("Ring", ContenderFamily.Ours, 0.5, 0.4, 0.7), Cost("RxObserveOnTaskPool", ContenderFamily.Rx, 0.6, 0.5, 0.8)),
        };

        var row = Line(DecisionTable.Write(sets, Place), "Many mostly idle pipes");

        Assert.Contains("**Ring**", row, StringComparison.Ordinal);
        Assert.Contains("1.20× [0.71–2.00] within noise", row, StringComparison.Ordinal);
    }

    [Fact]
    public void Write_OneSampleEach_IsNeverCalledBeyondTheNoise()
    {
        var sets = new[] { Set("loop", Rate("loop", "Ring", ContenderFamily.Ours, 2, 2e8, 2e8, 2e8), Rate("loop", "DataflowActionBlock", ContenderFamily.Dataflow, 2, 1e8, 1e8, 1e8)) };

        var row = HandOffRow(sets);

        Assert.Contains("2.00× [2.00–2.00] one sample, no interval", row, StringComparison.Ordinal);
    }

    [Fact]
    public void Write_LatencyMeasured_TheRowComparesBothAtTheHighestFixedRateBothSustained()
    {
        var sets = new[]
        {
            Loop(),
            Set("latency",
                P99("Ring", "1,000,000 msg/s", 12.5, 11, 14.2), // the runner-up did not sustain this rate
                P99("Ring", "100,000 msg/s", 20, 18, 22), P99("DataflowActionBlock", "100,000 msg/s", 30.1, 28, 33),
                P99("Ring", "10,000 msg/s", 40, 39, 41), P99("DataflowActionBlock", "10,000 msg/s", 50, 49, 51),
                P99("Ring", "50%", 19_677, 32.4, 27_705), P99("DataflowActionBlock", "50%", 8_741, 8_000, 9_000), // each at half its own maximum: not one load
                P99("Ring", "100,000 msg/s", 77, 76, 78) with { Cores = 1 }),
        };

        var row = HandOffRow(sets);

        Assert.Contains("| 20.0 µs [18.0–22.0] / 30.1 µs [28.0–33.0] at 100,000 msg/s |", row, StringComparison.Ordinal);
        Assert.DoesNotContain("77", row.Split('|')[5], StringComparison.Ordinal); // the 1-core figure is not this row's
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void Write_LatencyNotMeasuredForBoth_TheColumnSaysSo(bool winnerMeasured)
    {
        Measurement[] winners = winnerMeasured ? [P99("Ring", "1,000 msg/s", 12.5, 11, 14.2)] : [];
        var sets = new[]
        {
            Loop(),
            Set("latency", [.. winners, P99("RxObserveOnTaskPool", "1,000 msg/s", 9, 8, 10)]),
        };

        var row = HandOffRow(sets);

        Assert.Contains("| DataflowActionBlock | – |", row, StringComparison.Ordinal);
    }

    [Fact]
    public void Write_ColdAndSteadyOfOneGameInOneSet_TheSteadyRowReadsTheSteadyFigures()
    {
        Measurement Actor(string contender, ContenderFamily family, Phase phase, double median)
            => Rate("actors", contender, family, 2, median, median * 0.9, median * 1.1, "ping-pong, 1 in flight", phase);
        var sets = new[]
        {
            Set("actors", Actor("BatchDrainMailbox", ContenderFamily.Ours, Phase.Cold, 1e6), Actor("BatchDrainMailbox", ContenderFamily.Ours, Phase.Steady, 9e6),
                Actor("ProtoActor", ContenderFamily.ActorSystem, Phase.Cold, 2e6), Actor("ProtoActor", ContenderFamily.ActorSystem, Phase.Steady, 3e6)),
        };

        var row = Line(DecisionTable.Write(sets, Place), PingPong);

        Assert.Contains("**BatchDrainMailbox** (9.00 M", row, StringComparison.Ordinal);
        Assert.Contains("| ProtoActor |", row, StringComparison.Ordinal);
    }

    [Fact]
    public void Write_NothingMeasured_SaysWhichCommandMeasuresIt()
    {
        var row = Line(DecisionTable.Write([], Place), "Across processes");

        Assert.Contains("not measured yet", row, StringComparison.Ordinal);
        Assert.Contains("`lab grpc`", row, StringComparison.Ordinal);
    }

    [Fact]
    public void Write_TheSameFigureMeasuredTwice_TheNewestCounts()
    {
        var older = Set("loop", Rate("loop", "Ring", ContenderFamily.Ours, 2, 300e6, 290e6, 310e6), Rate("loop", "DataflowActionBlock", ContenderFamily.Dataflow, 2, 100e6, 95e6, 105e6));
        var newer = Set("loop", ResultsFixture.Day.AddDays(1), Rate("loop", "Ring", ContenderFamily.Ours, 2, 50e6, 45e6, 55e6));

        var row = HandOffRow(older, newer);

        Assert.Contains("**DataflowActionBlock**", row, StringComparison.Ordinal);
    }

    [Fact]
    public void Splice_ReplacesOnlyTheMarkedBlock_AndRefusesAReadmeWithoutIt()
    {
        var readme = $"# Title\n{DecisionTable.Start}\nold table\n{DecisionTable.End}\nrest\n";

        var spliced = DecisionTable.Splice(readme, "new table\n");

        Assert.StartsWith($"# Title\n{DecisionTable.Start}", spliced, StringComparison.Ordinal);
        Assert.Contains("new table", spliced, StringComparison.Ordinal);
        Assert.DoesNotContain("old table", spliced, StringComparison.Ordinal);
        Assert.EndsWith($"{DecisionTable.End}\nrest\n", spliced, StringComparison.Ordinal);
        Assert.Throws<InvalidDataException>(() => DecisionTable.Splice("# no markers", "table"));
    }

    [Fact]
    public void ResultSet_WrittenBesideATable_ReadsBack_AndAFileWithoutProvenanceIsRefused()
    {
        var (_, set) = Set("loop", Rate("loop", "Ring", ContenderFamily.Ours, 2, 1e8, 0.9e8, 1.1e8) with { Samples = [0.9e8, 1e8, 1.1e8] });
        var table = Path.Combine(Place, "LOOP-2.md");

        var written = set.WriteBeside(table);
        var back = ResultSet.Read(written);

        Assert.Equal(Path.Combine(Place, "LOOP-2.json"), written);
        Assert.Equal(set.Provenance, back.Provenance);
        var measurement = Assert.Single(back.Measurements);
        Assert.Equal(set.Measurements[0] with { Samples = [] }, measurement with { Samples = [] });
        Assert.Equal([0.9e8, 1e8, 1.1e8], measurement.Samples);

        var bare = Path.Combine(Place, "bare.json");
        File.WriteAllText(bare, """{ "Command": "loop", "Measurements": [] }""");
        Assert.Throws<InvalidDataException>(() => ResultSet.Read(bare));
        Assert.Equal([written], ResultSet.FindAll(Place).Select(s => s.Path));
    }

    // The rows at 2 cores of the hand-off and the two actor games.
    private const string HandOff = "One producer → one consumer (small objects, verifying handler, a long-lived pipe), 2 cores";
    private const string PingPong = "Actors, ping-pong (1 in flight), 2 cores";
    private const string Ring = "Actors, a ring of 1,000, all tokens at once, 2 cores";

    private string HandOffRow(params (string Path, ResultSet Set)[] sets) => Line(DecisionTable.Write(sets, Place), HandOff);

    /// <summary>The plain loop's hand-off: Ring at 130 M msg/s [120–140], ActionBlock at 100 M [95–105], and <paramref name="more"/>.</summary>
    private (string Path, ResultSet Set) Loop(params Measurement[] more)
        => Set("loop", [Rate("loop", "Ring", ContenderFamily.Ours, 2, 130e6, 120e6, 140e6), Rate("loop", "DataflowActionBlock", ContenderFamily.Dataflow, 2, 100e6, 95e6, 105e6), .. more]);

    private static string Line(string table, string situation)
        => Assert.Single(table.Split('\n'), line => line.StartsWith($"| {situation}", StringComparison.Ordinal));

    private static Measurement Rate(string scenario, string contender, ContenderFamily family, int cores, double median, double low, double high, string conditions = "", Phase phase = Phase.Steady)
        => new(scenario, contender, family, conditions, phase, cores, Measurement.MessagesPerSecond, median, low, high);

    private static Measurement P99(string contender, string load, double median, double low, double high)
        => new(Backbone.Latency.LatencyCommand.HandOffScenario, contender, ContenderFamily.Ours, string.Empty, Phase.Steady, 2, $"p99 µs at {load}", median, low, high);

    private static Measurement Cost(string contender, ContenderFamily family, double median, double low, double high)
        => new("idle", contender, family, string.Empty, Phase.Steady, 2, Measurement.IdleCorePercent, median, low, high);

    private (string Path, ResultSet Set) Set(string command, params Measurement[] measurements) => Set(command, ResultsFixture.Day, measurements);

    private (string Path, ResultSet Set) Set(string command, DateTime finished, params Measurement[] measurements)
        => (Path.Combine(Place, command, "x.json"), ResultsFixture.Set(command, measurements, finished: finished));
}
