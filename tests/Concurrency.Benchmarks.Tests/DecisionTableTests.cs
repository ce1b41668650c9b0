using Concurrency.Benchmarks.Contenders;
using Concurrency.Benchmarks.Reporting;
using Concurrency.Benchmarks.Runs;

namespace Concurrency.Benchmarks.Tests;

public sealed class DecisionTableTests : IDisposable
{
    private readonly ResultsFixture _results = new();

    private string Place => _results.Results;

    public void Dispose() => _results.Dispose();

    [Fact]
    public void Write_SuiteAndPlainProgramAgree_OneWinnerWithTheRatiosInterval()
    {
        var sets = new[]
        {
            Set("loop", Rate("loop", "Ring", ContenderFamily.Ours, 2, 130e6, 120e6, 140e6), Rate("loop", "DataflowActionBlock", ContenderFamily.Dataflow, 2, 100e6, 95e6, 105e6), Rate("loop", "RawRing", ContenderFamily.Ceiling, 2, 900e6, 800e6, 1000e6)),
            Set("report", Rate("HeadlineBenchmarks", "Ring", ContenderFamily.Ours, 2, 300e6, 290e6, 310e6), Rate("HeadlineBenchmarks", "DataflowActionBlock", ContenderFamily.Dataflow, 2, 150e6, 140e6, 160e6), Rate("HeadlineBenchmarks", "RawRing", ContenderFamily.Ceiling, 2, 900e6, 800e6, 1000e6)),
        };

        var row = HandOffRow(sets);

        // Both answers are in the row, each with its own figures and ratio, and the row does not say they differ.
        Assert.DoesNotContain("pick different winners", row, StringComparison.Ordinal);
        Assert.Contains("plain program: **Ring** (130 M [120–140] msg/s)", row, StringComparison.Ordinal);
        Assert.Contains("suite: **Ring** (300 M [290–310] msg/s)", row, StringComparison.Ordinal);
        Assert.Contains("plain program: 1.30× [1.14–1.47] beyond noise", row, StringComparison.Ordinal); // 120 ÷ 105, 140 ÷ 95
        Assert.Contains("suite: 2.00× [1.81–2.21] beyond noise", row, StringComparison.Ordinal); // 290 ÷ 160, 310 ÷ 140
        Assert.Contains("plain program: DataflowActionBlock", row, StringComparison.Ordinal);
        Assert.Contains("suite: DataflowActionBlock", row, StringComparison.Ordinal);
        Assert.DoesNotContain("RawRing", row, StringComparison.Ordinal); // a ceiling is a yardstick, never a winner
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
    public void Write_LatencyMeasured_TheRowGivesTheWinnersAndRunnerUpsP99AtHalfLoad()
    {
        var sets = new[]
        {
            Set("loop", Rate("loop", "Ring", ContenderFamily.Ours, 2, 130e6, 120e6, 140e6), Rate("loop", "DataflowActionBlock", ContenderFamily.Dataflow, 2, 100e6, 95e6, 105e6)),
            Set("latency", P99("Ring", 12.5, 11, 14.2), P99("DataflowActionBlock", 30.1, 28, 33), P99("Ring", 99, 98, 100) with { Cores = 1 }),
        };

        var row = HandOffRow(sets);

        Assert.Contains("| 12.5 µs [11.0–14.2] / 30.1 µs [28.0–33.0] |", row, StringComparison.Ordinal);
        Assert.DoesNotContain("99", row.Split('|')[5], StringComparison.Ordinal); // the 1-core figure is not this row's
    }

    [Fact]
    public void Write_NoLatencyMeasured_TheColumnSaysSo()
    {
        var sets = new[] { Set("loop", Rate("loop", "Ring", ContenderFamily.Ours, 2, 130e6, 120e6, 140e6), Rate("loop", "DataflowActionBlock", ContenderFamily.Dataflow, 2, 100e6, 95e6, 105e6)) };

        var row = HandOffRow(sets);

        Assert.Contains("| DataflowActionBlock | – |", row, StringComparison.Ordinal);
    }

    [Fact]
    public void Write_ColdAndSteadyOfOneGameInOneSet_TheSteadyRowReadsTheSteadyFigures()
    {
        Measurement Actor(string contender, ContenderFamily family, Phase phase, double median)
            => new("actors", contender, family, "ping-pong, 1 in flight", phase, 2, Measurement.MessagesPerSecond, median, median * 0.9, median * 1.1);
        var sets = new[]
        {
            Set("actors", Actor("BatchDrainMailbox", ContenderFamily.Ours, Phase.Cold, 1e6), Actor("BatchDrainMailbox", ContenderFamily.Ours, Phase.Steady, 9e6),
                Actor("ProtoActor", ContenderFamily.ActorSystem, Phase.Cold, 2e6), Actor("ProtoActor", ContenderFamily.ActorSystem, Phase.Steady, 3e6)),
        };

        var row = Line(DecisionTable.Write(sets, Place), "Actors, ping-pong (1 in flight), 2 cores");

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

    // The row of the hand-off at 2 cores in the table written from sets.
    private string HandOffRow(params (string Path, ResultSet Set)[] sets)
        => Line(DecisionTable.Write(sets, Place), "One producer → one consumer (small objects, verifying handler, a long-lived pipe), 2 cores");

    private static string Line(string table, string situation)
        => Assert.Single(table.Split('\n'), line => line.StartsWith($"| {situation}", StringComparison.Ordinal));

    private static Measurement Rate(string scenario, string contender, ContenderFamily family, int cores, double median, double low, double high)
        => new(scenario, contender, family, string.Empty, Phase.Steady, cores, Measurement.MessagesPerSecond, median, low, high);

    private static Measurement P99(string contender, double median, double low, double high)
        => new(Latency.LatencyCommand.HandOffScenario, contender, ContenderFamily.Ours, string.Empty, Phase.Steady, 2, "p99 µs at 50%", median, low, high);

    private static Measurement Cost(string contender, ContenderFamily family, double median, double low, double high)
        => new("idle", contender, family, string.Empty, Phase.Steady, 2, Measurement.IdleCorePercent, median, low, high);

    private (string Path, ResultSet Set) Set(string command, params Measurement[] measurements) => Set(command, ResultsFixture.Day, measurements);

    private (string Path, ResultSet Set) Set(string command, DateTime finished, params Measurement[] measurements)
        => (Path.Combine(Place, command, "x.json"), ResultsFixture.Set(command, measurements, finished: finished));
}
