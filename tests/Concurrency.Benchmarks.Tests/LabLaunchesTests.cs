namespace Concurrency.Benchmarks.Tests;

/// <summary>How <c>lab --launches N</c> folds several launches into the published values: medians with their spread, nothing averaged away.</summary>
public sealed class LabLaunchesTests
{
    [Theory]
    [InlineData(new[] { "5,000", "5,000", "5,000" }, "5,000")] // a size: the same in every launch
    [InlineData(new[] { "864,123 [850,000, 870,000]", "852,000 [800,000, 900,000]", "954,500 [940,000, 960,000]" }, "864,123 [852,000, 954,500]")]
    [InlineData(new[] { "0.68 [0.60, 0.70]", "0.66", "0.67 [0.65, 0.69]" }, "0.67 [0.66, 0.68]")]
    [InlineData(new[] { "83%", "80%" }, "82 [80, 83]%")]
    [InlineData(new[] { "32 ns", "35 ns", "33 ns" }, "33 [32, 35] ns")]
    [InlineData(new[] { "12.5", "9" }, "10.8 [9.0, 12.5]")]
    [InlineData(new[] { "met", "not met", "met" }, "met / not met / met")] // verdicts are listed, never merged
    [InlineData(new[] { "1.5 × 120 ns", "1.5 × 130 ns" }, "1.5 × 120 ns / 1.5 × 130 ns")] // numbers after the first: listed
    [InlineData(new[] { "–", "12" }, "– / 12")]
    public void MergeCell_ByKindOfCell(string[] launches, string expected)
        => Assert.Equal(expected, LabLaunches.MergeCell(launches));

    [Fact]
    public void Merge_TablesAndCharts_CellByCellAndPointByPoint()
    {
        static LabOutcome Launch(string rate, string verdict, double point) => new(
            [new LabTable("Rates", ["path", "msg/s", "verdict"], [["ours", rate, verdict]], ["msg/s"], "A note.")],
            [new LabChart("rates", "Rates", "senders", "msg/s", [new LabSeries("ours", [1, 10], [point, 2 * point])])]);

        var merged = LabLaunches.Merge([Launch("100", "met", 1), Launch("300", "met", 3), Launch("200", "not met", 2)]);

        var table = Assert.Single(merged.Tables);
        Assert.Equal(["ours", "200 [100, 300]", "met / met / not met"], table.Rows[0]);
        Assert.Equal("A note.", table.Note);
        Assert.Equal([2.0, 4.0], Assert.Single(merged.Charts).Series[0].Y);
    }

    [Fact]
    public void Merge_ALaunchWithAnotherShape_ShowsTheFirstAndSaysSo()
    {
        var one = new LabOutcome([new LabTable("Rates", ["path", "msg/s"], [["a", "1"]])], []);
        var two = new LabOutcome([new LabTable("Rates", ["path", "msg/s"], [["a", "2"], ["b", "3"]])], []);

        var table = Assert.Single(LabLaunches.Merge([one, two]).Tables);

        Assert.Equal(["a", "1"], Assert.Single(table.Rows));
        Assert.Contains("first launch's is shown", table.Note, StringComparison.Ordinal);
    }

    [Fact]
    public void Merge_OneLaunch_IsThatLaunch()
    {
        var only = new LabOutcome([new LabTable("Rates", ["path"], [["a"]])], []);

        Assert.Same(only, LabLaunches.Merge([only]));
        Assert.Throws<ArgumentException>(() => LabLaunches.Merge([]));
    }
}
