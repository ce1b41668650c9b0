namespace Concurrency.Benchmarks.Tests;

/// <summary>The report merges only what it can stand behind, and says what it merged.</summary>
public sealed class ReportCommandTests
{
    private static readonly Dictionary<string, double> Headline = new()
    {
        ["DirectCall"] = 500e6,
        ["RawRing"] = 100e6,
        ["Ring"] = 40e6,
        ["RxObserveOnTaskPool"] = 10e6,
        ["DataflowActionBlock"] = 20e6,
    };

    [Fact]
    public void Report_ResultsFromTwoCommits_RefusesWithOneLineAndExitCode1()
    {
        using var results = new ResultsFixture();
        results.AddHeadline("first", ResultsFixture.Commit('a'), Headline);
        results.AddHeadline("second", ResultsFixture.Commit('b'), Headline);
        var (output, error) = (new StringWriter(), new StringWriter());

        var exit = Program.Run(["report", "--results", results.Results, "--out", results.Output], output, error);

        Assert.Equal(1, exit);
        var line = Assert.Single(error.ToString().Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.Contains("refusing to merge", line, StringComparison.Ordinal);
        Assert.Contains(ResultsFixture.Commit('a'), line, StringComparison.Ordinal);
        Assert.Contains(ResultsFixture.Commit('b'), line, StringComparison.Ordinal);
        Assert.False(File.Exists(Path.Combine(results.Output, "REPORT.md")));
    }

    [Theory]
    [InlineData(0, 0, 0)] // two summaries of one run of a tree with uncommitted changes: the same code
    [InlineData(0, 30, 1)] // two runs of such a tree: the changes may differ, so they count as different code
    public void Report_UncommittedChanges_MergedOnlyWithinOneRun(int firstRun, int secondRun, int expectedExit)
    {
        using var results = new ResultsFixture();
        results.AddHeadline("first", ResultsFixture.Commit('f'), Headline, dirty: true, runStart: firstRun);
        results.AddHeadline("second", ResultsFixture.Commit('f'), Headline, dirty: true, runStart: secondRun);

        var exit = Program.Run(["report", "--results", results.Results, "--out", results.Output], new StringWriter(), new StringWriter());

        Assert.Equal(expectedExit, exit);
    }

    [Fact]
    public void Report_TwoCommitsWithAllowFlag_WritesReportThatSaysSoAtTheTop()
    {
        using var results = new ResultsFixture();
        results.AddHeadline("first", ResultsFixture.Commit('a'), Headline);
        results.AddHeadline("second", ResultsFixture.Commit('b'), Headline);

        var exit = Program.Run(["report", "--results", results.Results, "--out", results.Output, "--allow-mixed-commits"], new StringWriter(), new StringWriter());

        Assert.Equal(0, exit);
        var report = File.ReadAllLines(Path.Combine(results.Output, "REPORT.md"));
        var firstLine = report.SkipWhile(l => l.StartsWith('#') || l.Length == 0).First();
        Assert.Contains("MIXED COMMITS", firstLine, StringComparison.Ordinal);
        Assert.Contains(report, l => l.Contains("`first-report-full.json`", StringComparison.Ordinal) && l.Contains(ResultsFixture.Commit('a'), StringComparison.Ordinal));
        Assert.Contains(report, l => l.Contains("`second-report-full.json`", StringComparison.Ordinal) && l.Contains(ResultsFixture.Commit('b'), StringComparison.Ordinal));
    }

    [Fact]
    public void Report_OneCommit_WritesReportAndReadmeTableWithVerdicts()
    {
        using var results = new ResultsFixture();
        results.AddHeadline("only", ResultsFixture.Commit('c'), Headline);

        var exit = Program.Run(["report", "--results", results.Results, "--out", results.Output], new StringWriter(), new StringWriter());

        Assert.Equal(0, exit);
        var table = File.ReadAllLines(Path.Combine(results.Output, "README-table.md"));
        var ring = Assert.Single(table, l => l.StartsWith("| Ring |", StringComparison.Ordinal));
        Assert.Contains("4.00× [", ring, StringComparison.Ordinal); // 40 M against Rx's 10 M
        Assert.Contains("faster", ring, StringComparison.Ordinal);
        Assert.Contains(table, l => l.Contains("-- report --results", StringComparison.Ordinal));
        Assert.DoesNotContain(File.ReadAllLines(Path.Combine(results.Output, "REPORT.md")), l => l.StartsWith('|') && l.Contains('⚠', StringComparison.Ordinal));
    }

    [Fact]
    public void Report_IterationUnder100Milliseconds_NotedOnItsRow()
    {
        using var results = new ResultsFixture();
        results.AddHeadline("only", ResultsFixture.Commit('e'), Headline, iterationMilliseconds: 60);

        Program.Run(["report", "--results", results.Results, "--out", results.Output], new StringWriter(), new StringWriter());

        var ring = Assert.Single(File.ReadAllLines(Path.Combine(results.Output, "REPORT.md")), l => l.StartsWith("| Ring |", StringComparison.Ordinal));
        Assert.Contains("⚠ an iteration of 59 ms at 2 cores", ring, StringComparison.Ordinal); // 60 ms, the fastest iteration 2% quicker
    }

    [Fact]
    public void Report_PathFasterThanRawRing_FlagsTheCeiling()
    {
        using var results = new ResultsFixture();
        results.AddHeadline("only", ResultsFixture.Commit('d'), new Dictionary<string, double>(Headline) { ["Ring"] = 150e6 });

        Program.Run(["report", "--results", results.Results, "--out", results.Output], new StringWriter(), new StringWriter());

        var ring = Assert.Single(File.ReadAllLines(Path.Combine(results.Output, "REPORT.md")), l => l.StartsWith("| Ring |", StringComparison.Ordinal));
        Assert.Contains("⚠ beats its ceiling (RawRing at 2 cores)", ring, StringComparison.Ordinal);
    }

    [Fact]
    public void Report_NoOut_WritesANewFolderUnderResultsRunsReportAndLeavesTheCommittedReport()
    {
        using var results = new ResultsFixture();
        results.AddHeadline("only", ResultsFixture.Commit('c'), Headline);
        var committed = Directory.CreateDirectory(Path.Combine(results.Output, "results")).FullName;
        File.WriteAllText(Path.Combine(committed, "REPORT.md"), "committed");
        var output = new StringWriter();

        var exit = Backbone.Reporting.ReportCommand.Run(new Backbone.Cli.ReportOptions(results.Results, OutputDirectory: null, AllowMixedCommits: false), output, new StringWriter(), baseDirectory: results.Output);

        Assert.Equal(0, exit);
        Assert.Equal("committed", File.ReadAllText(Path.Combine(committed, "REPORT.md")));
        var written = Assert.Single(Directory.GetDirectories(Path.Combine(committed, "runs", "report")));
        Assert.Matches(@"^\d{4}-\d{2}-\d{2}-\d{6}$", Path.GetFileName(written));
        Assert.True(File.Exists(Path.Combine(written, "REPORT.md")));
        Assert.Contains(Path.Combine(written, "REPORT.md"), output.ToString(), StringComparison.Ordinal); // it says where
    }

    [Fact]
    public void Report_NoResults_ExitCode1()
    {
        using var results = new ResultsFixture();
        var error = new StringWriter();

        Assert.Equal(1, Program.Run(["report", "--results", results.Results, "--out", results.Output], new StringWriter(), error));
        Assert.Contains("run the benchmarks first", error.ToString(), StringComparison.Ordinal);
    }
}
