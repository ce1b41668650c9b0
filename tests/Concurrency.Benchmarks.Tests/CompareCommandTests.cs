using Concurrency.Benchmarks.Backbone.Compare;

namespace Concurrency.Benchmarks.Tests;

/// <summary>compare: B ÷ A per figure with a verdict on the noise, and refusals of results without their provenance.</summary>
public sealed class CompareCommandTests : IDisposable
{
    private readonly ResultsFixture _results = new();

    public void Dispose() => _results.Dispose();

    [Fact]
    public void Compare_RatesWhoseLaunchesDoNotOverlap_BeyondNoiseAndBetter()
    {
        var figure = Comparison.Compare(Rate(100, 101, 102), Rate(150, 151, 152));

        Assert.Equal(151.0 / 101, figure.Ratio.Point, 1e-9);
        Assert.True(figure.Ratio.Low > 1);
        Assert.Equal("beyond noise: B better", figure.Verdict);
    }

    [Fact]
    public void Compare_ALatencyThatGrew_BeyondNoiseAndWorse()
    {
        var figure = Comparison.Compare(Latency(10, 11, 12), Latency(20, 21, 22));

        Assert.Equal("beyond noise: B worse", figure.Verdict);
    }

    [Fact]
    public void Compare_OverlappingLaunches_WithinNoise()
    {
        var figure = Comparison.Compare(Rate(90, 100, 110), Rate(95, 105, 115));

        Assert.Equal(Comparison.WithinNoise, figure.Verdict);
        Assert.InRange(1.0, figure.Ratio.Low, figure.Ratio.High);
    }

    [Fact]
    public void Compare_OneSampleEach_NeverBeyondNoise()
    {
        var figure = Comparison.Compare(Rate(100), Rate(200));

        Assert.Equal(Comparison.NoInterval, figure.Verdict);
        Assert.False(figure.BeyondNoise);
        Assert.Equal("2.00×", figure.FormatRatio());
    }

    [Fact]
    public void Run_TwoFolders_WritesTheTableWithBothSidesProvenance()
    {
        var a = Write("a", "1111111111111111111111111111111111111111", Rate(100, 101, 102), Latency(10, 11, 12) with { Contender = "OnlyInA" });
        var b = Write("b", "2222222222222222222222222222222222222222", Rate(150, 151, 152));
        var (output, error) = (new StringWriter(), new StringWriter());

        var exit = Program.Run(["compare", a, b, "--out", _results.Output], output, error);

        Assert.True(exit == 0, error.ToString());
        var text = File.ReadAllText(Path.Combine(_results.Output, "COMPARE.md"));
        Assert.Contains("| commit | 1111111111111111111111111111111111111111 | 2222222222222222222222222222222222222222 |", text, StringComparison.Ordinal);
        Assert.Contains("| loop | 2 | msg/s | Ring |", text, StringComparison.Ordinal);
        Assert.Contains("beyond noise: B better", text, StringComparison.Ordinal);
        Assert.Contains("1 only in A, 0 only in B", text, StringComparison.Ordinal);
        Assert.True(File.Exists(Path.Combine(_results.Output, "compare.png")));
    }

    [Fact]
    public void Run_AFileWithoutProvenance_RefusedWithOneLineAndExitCode2()
    {
        var good = Write("good", new string('a', 40), Rate(100, 101, 102));
        var bare = Path.Combine(_results.Results, "bare.json");
        File.WriteAllText(bare, """{ "Command": "loop", "Measurements": [] }""");
        var error = CommandRun.UsageErrorOf("compare", bare, good, "--out", _results.Output);

        var line = Assert.Single(error.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.Contains("carries no command, provenance or measurements", line, StringComparison.Ordinal);
        Assert.False(Directory.Exists(_results.Output));
    }

    [Fact]
    public void Run_AFolderWithNoResultSet_RefusedWithOneLine()
    {
        var good = Write("good", new string('a', 40), Rate(100, 101, 102));
        var empty = Directory.CreateDirectory(Path.Combine(_results.Results, "old")).FullName;
        File.WriteAllText(Path.Combine(empty, "LOOP-2.md"), "# a table from before result sets");
        var error = CommandRun.UsageErrorOf("compare", good, empty);

        Assert.StartsWith("compare: B: ", error, StringComparison.Ordinal);
        Assert.Contains("holds no result set", error, StringComparison.Ordinal);
    }

    private string Write(string folder, string commit, params Measurement[] measurements)
        => _results.WriteSet(folder, ResultsFixture.Set("loop", measurements, commit));

    private static Measurement Rate(params double[] launches)
        => Measurement.Of("loop", "Ring", ContenderFamily.Ours, string.Empty, Phase.Steady, 2, Measurement.MessagesPerSecond, launches);

    private static Measurement Latency(params double[] launches)
        => Measurement.Of("latency hand-off", "Ring", ContenderFamily.Ours, string.Empty, Phase.Steady, 2, "p99 µs at 50%", launches);
}
