namespace Concurrency.Benchmarks.Tests;

/// <summary>The lab's command line and its report writer; each experiment has a quick smoke test of its own.</summary>
public sealed class LabCommandTests
{
    [Fact]
    public void Run_List_OneLinePerExperiment()
    {
        var output = CommandRun.OutputOf("lab", "--list");

        var lines = output.Split('\n', StringSplitOptions.RemoveEmptyEntries);
        Assert.Equal(LabExperiments.All.Count, lines.Length);
        Assert.All(LabExperiments.All, e => Assert.Contains(lines, l => l.StartsWith(e.Name + " ", StringComparison.Ordinal)));
    }

    [Fact]
    public async Task Run_QuickExperiment_RunsInAChildProcessAndWritesItsSection()
    {
        var (section, lab) = await RunQuickPoolShrinkAsync();

        Assert.Contains("not for publishing", section, StringComparison.Ordinal);
        Assert.Contains("Garbage collector: workstation", section, StringComparison.Ordinal);
        Assert.Contains(section.Trim(), lab, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Run_QuickExperimentTwoLaunches_RunsTwoChildrenAndSaysTheSectionIsTheirMedian()
    {
        var (section, _) = await RunQuickPoolShrinkAsync("--launches", "2");

        Assert.Contains("Launches: 2, each a fresh process.", section, StringComparison.Ordinal);
        Assert.Contains("--launches 2", section, StringComparison.Ordinal); // the recorded command re-runs it
    }

    [Fact]
    public async Task Run_QuickExperimentServerGc_TheChildRunsTheServerCollectorAndTheSectionSaysSo()
    {
        // The child checks that the runtime runs the collector it was asked for, and fails if not.
        var (section, _) = await RunQuickPoolShrinkAsync("--gc", "server");

        Assert.Contains("Garbage collector: server (--gc server)", section, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("pool-shrink", "--gc", "fast")]
    [InlineData("pool-shrink", "--gc")]
    [InlineData("pool-shrink", "--launches", "0")]
    [InlineData("pool-shrink", "--launches", "21")]
    [InlineData("pool-shrink", "--launches", "abc")]
    [InlineData("pool-shrink", "--launches", "-2")]
    [InlineData("pool-burst", "--contender", "capped")]
    [InlineData("grpc", "--server", "not-a-url")]
    [InlineData("grpc", "--server", "ftp://127.0.0.1:1")]
    [InlineData("grpc", "--proto-remote", "nohostport")]
    [InlineData("grpc", "--proto-remote", "127.0.0.1:99999")]
    [InlineData("grpc", "--in-process", "--server", "http://127.0.0.1:5000")]
    public void Run_BadOption_PrintsOneLineAndExitsTwo(params string[] args)
    {
        var error = new StringWriter();

        Assert.Equal(2, Program.Run(["lab", .. args], new StringWriter(), error));

        Assert.Single(error.ToString().Split('\n', StringSplitOptions.RemoveEmptyEntries));
    }

    [Fact]
    public void Fit_LongStepIn80Columns_LabelLeavesRoomForTheBarPercentageAndTime()
    {
        var label = LabProgress.Fit("pool-shrink, 1 core", "launch 2/3: " + new string('x', 200), 80 - 36);

        Assert.Equal(80 - 36, label.Length);
        Assert.EndsWith("…", label, StringComparison.Ordinal);
        Assert.StartsWith("pool-shrink, 1 core: launch 2/3: ", label, StringComparison.Ordinal);
    }

    [Fact]
    public void Show_OutputNotTheConsole_OnePlainLinePerStepChange()
    {
        var output = new StringWriter();

        LabProgress.Show(output, ["logs, 1 core", "logs, 2 cores"], rows =>
        {
            rows[0](0.1, "warm-up");
            rows[0](0.2, "warm-up");
            rows[0](1, "done");
            rows[1](1, "done");
        });

        Assert.Equal(["logs, 1 core: warm-up (10%)", "logs, 1 core: done (100%)", "logs, 2 cores: done (100%)"], output.ToString().Split(Environment.NewLine, StringSplitOptions.RemoveEmptyEntries));
    }

    [Fact]
    public void Experiments_NamesAreUniqueAndPlain()
    {
        var names = LabExperiments.All.Select(e => e.Name).ToList();

        Assert.Equal(names.Count, names.Distinct(StringComparer.OrdinalIgnoreCase).Count());
        Assert.All(names, n => Assert.Matches("^[a-z][a-z0-9-]*$", n));
    }

    [Fact]
    public void Sample_EvenCount_MedianBetweenTheMiddleTwoWithRange()
    {
        var sample = LabSample.Of([4, 1, 3, 2]);

        Assert.Equal((2.5, 1.0, 4.0, 4), (sample.Median, sample.Low, sample.High, sample.Count));
        Assert.Equal("2.5 [1.0, 4.0]", sample.Format("0.0"));
        Assert.True(LabSample.Of([5, 6]).Above(sample));
        Assert.False(LabSample.Of([4, 6]).Above(sample));
    }

    [Fact]
    public void WriteSection_PerCoreRuns_OneTableWithACoresColumnAndAChartPerCoreCount()
    {
        var directory = Directory.CreateTempSubdirectory("lab-report-");
        try
        {
            var experiment = new FixedExperiment();
            LabOutcome At(int cores) => new(
                [new LabTable("Speed-up", ["workload", "speed-up"], [["sum", $"{cores}.0x"]], ["speed-up"], "Higher is better.")],
                [new LabChart("speed", "Speed", "workers", "x", [new LabSeries("sum", [1, 2], [1, cores])])]);
            var provenance = Backbone.Runs.RunProvenance.Capture(["lab", "fixed"]);

            var path = LabReport.WriteSection(directory.FullName, experiment, [(1, At(1)), (2, At(2))], provenance, quick: true);

            var text = File.ReadAllText(path);
            Assert.Contains("| cores | workload | speed-up |", text, StringComparison.Ordinal);
            Assert.Contains("|---:|---|---:|", text, StringComparison.Ordinal);
            Assert.Contains("| 1 | sum | 1.0x |", text, StringComparison.Ordinal);
            Assert.Contains("| 2 | sum | 2.0x |", text, StringComparison.Ordinal);
            Assert.Single(text.Split("Higher is better.").Skip(1));
            Assert.Contains("not for publishing", text, StringComparison.Ordinal);
            Assert.True(File.Exists(Path.Combine(directory.FullName, "speed-1c.png")));
            Assert.True(File.Exists(Path.Combine(directory.FullName, "speed-2c.png")));
            Assert.True(File.Exists(Path.Combine(directory.FullName, LabReport.FileName)));
        }
        finally
        {
            directory.Delete(recursive: true);
        }
    }

    private sealed class FixedExperiment : ILabExperiment
    {
        public string Name => "fixed";

        public string Title => "Fixed";

        public string Description => "A fixed outcome, for the report writer.";

        public string Method => "Nothing is measured.";

        public bool PerCoreCount => true;

        public LabOutcome Run(LabContext context) => throw new InvalidOperationException("The report test does not run it.");
    }

    // Runs "lab pool-shrink --quick" with the options into a folder of its own; returns its section and LAB.md.
    private static async Task<(string Section, string Lab)> RunQuickPoolShrinkAsync(params string[] options)
    {
        using var run = await CommandRun.RunAsync(TimeSpan.FromMinutes(4), ["lab", "pool-shrink", "--quick", .. options]);

        run.AssertSucceeded();
        return (File.ReadAllText(Path.Combine(run.Folder, "pool-shrink.md")), File.ReadAllText(Path.Combine(run.Folder, LabReport.FileName)));
    }
}
