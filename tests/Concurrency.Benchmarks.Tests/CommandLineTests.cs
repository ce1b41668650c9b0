using System.CommandLine;
using System.Diagnostics;

namespace Concurrency.Benchmarks.Tests;

/// <summary>A bad command line costs one clear line on stderr and exit code 2, before anything runs; every command has --help.</summary>
public sealed class CommandLineTests
{
    public static TheoryData<string> CommandNames => ["report", "loop", "actors", "footprint", "lab", "serve", "idle", "latency", "compare"];

    [Theory]
    [InlineData("--cores", "abc")]
    [InlineData("--cores", "x")]
    [InlineData("--cores", "0")]
    [InlineData("--cores", "99")]
    [InlineData("--cores", "1,,2")]
    [InlineData("--cores")]
    [InlineData("--job", "fastest")]
    [InlineData("reprot")]
    [InlineData("nosuchcommand", "--filter", "*")]
    [InlineData("report", "--bogus")]
    [InlineData("report", "--results")]
    [InlineData("lab", "--cores", "abc")]
    [InlineData("lab", "--cores", "99")]
    [InlineData("lab", "--launches", "0")]
    [InlineData("lab", "--bogus")]
    [InlineData("lab", "no-such-experiment")]
    [InlineData("lab", "--out")]
    [InlineData("loop", "--launches", "0")]
    [InlineData("loop", "--launches", "abc")]
    [InlineData("loop", "--messages", "-5")]
    [InlineData("loop", "--child")]
    [InlineData("loop", "stray")]
    [InlineData("footprint", "--actors", "-1")]
    [InlineData("footprint", "--runs", "0")]
    [InlineData("idle", "--seconds", "0")]
    [InlineData("latency", "--seconds", "0")]
    [InlineData("latency", "--launches", "0")]
    [InlineData("latency", "--contenders", "NoSuchPath")]
    [InlineData("latency", "stray")]
    [InlineData("compare")]
    [InlineData("compare", "only-one")]
    [InlineData("compare", "no-such-folder-a", "no-such-folder-b")]
    [InlineData("serve", "--proto-remote-port", "70000")]
    public void Run_BadArgument_OneLineOnStderrAndExitCode2(params string[] args)
    {
        var (output, error) = (new StringWriter(), new StringWriter());

        var exit = Program.Run(args, output, error);

        Assert.Equal(UsageException.ExitCode, exit);
        var line = Assert.Single(error.ToString().Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.DoesNotContain("Exception", line, StringComparison.Ordinal); // a message, not a stack trace
        Assert.Empty(output.ToString());
    }

    [Theory]
    [InlineData(new[] { "--cores", "abc" }, "--cores: 'abc' is not a whole number; give core counts such as --cores 1,2,4.")]
    [InlineData(new[] { "loop", "--launches", "0" }, "loop: --launches needs a whole number from 1 to 20, not '0'.")]
    [InlineData(new[] { "lab", "--launches", "0" }, "lab: --launches needs a whole number from 1 to 20, not '0'.")]
    [InlineData(new[] { "footprint", "--actors", "-1" }, "footprint: --actors needs a whole number from 1 to 10,000,000, not '-1'.")]
    public void Run_BadValue_SaysWhatIsWrong(string[] args, string expected)
    {
        var error = new StringWriter();

        Program.Run(args, new StringWriter(), error);

        Assert.Equal(expected, error.ToString().Trim());
    }

    [Fact]
    public void Run_CoresAboveTheMachine_RefusedNotCapped()
    {
        var error = CommandRun.UsageErrorOf("--cores", "1,99");

        Assert.StartsWith("--cores: 99 is not a core count of this machine; each must be from 1 to ", error, StringComparison.Ordinal);
    }

    [Fact]
    public void Run_UnknownCommand_OneLineWithTheNearestCommandAndNothingRuns()
    {
        var (output, error) = (new StringWriter(), new StringWriter());
        var watch = Stopwatch.StartNew();

        var exit = Program.Run(["reprot"], output, error);

        Assert.Equal(UsageException.ExitCode, exit);
        Assert.True(watch.Elapsed < TimeSpan.FromSeconds(10), $"took {watch.Elapsed}"); // a fall-through into a benchmark run takes minutes
        var line = Assert.Single(error.ToString().Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.StartsWith("unknown command 'reprot'; did you mean 'report'? Commands: report, loop, actors, footprint, lab, serve, replica, idle, latency, compare", line, StringComparison.Ordinal);
        Assert.Empty(output.ToString());
    }

    [Theory]
    [MemberData(nameof(CommandNames))]
    public void Run_CommandHelp_ExitsZeroAndListsItsOptions(string command)
    {
        var (output, error) = (new StringWriter(), new StringWriter());

        var exit = Program.Run([command, "--help"], output, error);

        Assert.Equal(0, exit);
        Assert.Contains($"Usage:", output.ToString(), StringComparison.Ordinal);
        Assert.Contains($" {command} [options]", output.ToString().Replace(" [<NAME>...]", string.Empty, StringComparison.Ordinal).Replace(" [command]", string.Empty, StringComparison.Ordinal).Replace(" <A> <B>", string.Empty, StringComparison.Ordinal), StringComparison.Ordinal);
        Assert.Contains("--help", output.ToString(), StringComparison.Ordinal);
        Assert.Empty(error.ToString());
    }

    [Fact]
    public void Run_RootHelp_ListsOurOptionsAndCommands()
    {
        var output = CommandRun.OutputOf("--help");

        Assert.Contains("--cores <LIST>", output, StringComparison.Ordinal);
        Assert.Contains("-j, --job <NAME>", output, StringComparison.Ordinal);
        Assert.All(CommandNames, c => Assert.Contains($"  {c.Data}", output, StringComparison.Ordinal));
    }

    [Theory]
    [InlineData("report", "--out <DIR>", "results/runs/report/", "[default: BenchmarkDotNet.Artifacts/results]", "--allow-mixed-commits")]
    [InlineData("lab", "--quick", "--cores <LIST>", "--launches <N>", "--in-process", "--gc <MODE>")]
    public void Run_CommandHelp_ListsItsOwnOptionsWithDefaults(string command, params string[] expected)
    {
        var output = CommandRun.OutputOf(command, "--help");

        Assert.All(expected, text => Assert.Contains(text, output, StringComparison.Ordinal));
    }

    [Fact]
    public void Parse_NoArguments_HeadlineAtOneAndAllCores()
    {
        var options = ParseRun([], machineCores: 8);

        Assert.Equal([1, 8], options.Cores);
        Assert.Equal(["--filter", RunArguments.DefaultFilter], options.BenchmarkDotNetArguments);
    }

    [Fact]
    public void Parse_CoresAndBenchmarkDotNetOptions_OursTakenTheRestPassedThroughInOrder()
    {
        string[] args = ["--cores", "4,1,2,2", "--filter", "*Topology*", "--job", "dry", "--list", "flat"];

        var options = ParseRun(args, machineCores: 4);

        Assert.Equal([1, 2, 4], options.Cores);
        Assert.Equal(["--filter", "*Topology*", "--list", "flat"], options.BenchmarkDotNetArguments);
        Assert.Equal(args, options.CommandLine); // the provenance records the command as given
    }

    // The root command's own options, as Commands builds them, parsed without running anything.
    private static RunOptions ParseRun(string[] args, int machineCores)
    {
        var symbols = new RunArguments.Symbols(machineCores);
        var root = new RootCommand { symbols.Cores, symbols.Job };
        root.TreatUnmatchedTokensAsErrors = false;
        return RunArguments.From(root.Parse(args), symbols, machineCores);
    }

    [Fact]
    public void Run_ReportDecide_WritesTheTableFromTheResultSetsIntoTheReadmesMarkedBlock()
    {
        using var results = new ResultsFixture();
        var place = results.WriteSet("decide", ResultsFixture.Set(
            "loop",
            [
                new("loop", "BatchDrainQueue", Backbone.Contenders.ContenderFamily.Ours, string.Empty, Backbone.Contenders.Phase.Steady, 2, Backbone.Runs.Measurement.MessagesPerSecond, 2e8, 1.9e8, 2.1e8),
                new("loop", "DataflowActionBlock", Backbone.Contenders.ContenderFamily.Dataflow, string.Empty, Backbone.Contenders.Phase.Steady, 2, Backbone.Runs.Measurement.MessagesPerSecond, 1e8, 0.9e8, 1.1e8),
            ],
            ResultsFixture.Commit('b')));
        var readme = Path.Combine(place, "README.md");
        File.WriteAllText(readme, "intro\n<!-- decision-table:start -->\nplaceholder\n<!-- decision-table:end -->\nrest\n");
        var (output, error) = (new StringWriter(), new StringWriter());

        var exit = Program.Run(["report", "decide", "--from", place, "--readme", readme], output, error);

        Assert.Equal(0, exit);
        Assert.Empty(error.ToString());
        var written = File.ReadAllText(readme);
        Assert.DoesNotContain("placeholder", written, StringComparison.Ordinal);
        Assert.Contains("| One producer → one consumer (small objects, verifying handler, a long-lived pipe), 2 cores | **BatchDrainQueue**", written, StringComparison.Ordinal);
        Assert.EndsWith("<!-- decision-table:end -->\nrest\n", written, StringComparison.Ordinal);
    }
}
