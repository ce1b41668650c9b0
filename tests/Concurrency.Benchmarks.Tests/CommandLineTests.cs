using Concurrency.Benchmarks.Cli;
using Xunit;

namespace Concurrency.Benchmarks.Tests;

/// <summary>A bad command line costs one clear line on stderr and exit code 2, before anything runs.</summary>
public sealed class CommandLineTests
{
    [Theory]
    [InlineData("--cores", "abc")]
    [InlineData("--cores", "0")]
    [InlineData("--cores", "1,,2")]
    [InlineData("--cores")]
    [InlineData("--job", "fastest")]
    [InlineData("report", "--bogus")]
    [InlineData("report", "--results")]
    [InlineData("lab", "--cores", "abc")]
    [InlineData("lab", "--bogus")]
    [InlineData("lab", "no-such-experiment")]
    [InlineData("lab", "--out")]
    [InlineData("loop", "--launches", "0")]
    [InlineData("loop", "--launches", "abc")]
    [InlineData("loop", "--child")]
    public void Run_BadArgument_OneLineOnStderrAndExitCode2(params string[] args)
    {
        var (output, error) = (new StringWriter(), new StringWriter());

        var exit = Program.Run(args, output, error);

        Assert.Equal(UsageException.ExitCode, exit);
        var line = Assert.Single(error.ToString().Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.DoesNotContain("Exception", line, StringComparison.Ordinal); // a message, not a stack trace
        Assert.Empty(output.ToString());
    }

    [Fact]
    public void Run_CoresAbc_SaysWhatIsWrong()
    {
        var error = new StringWriter();

        Program.Run(["--cores", "abc"], new StringWriter(), error);

        Assert.Equal("--cores: 'abc' is not a whole number; give core counts such as --cores 1,2,4.", error.ToString().Trim());
    }

    [Fact]
    public void Parse_NoArguments_HeadlineAtOneAndAllCores()
    {
        var options = RunArguments.Parse([], machineCores: 8);

        Assert.Equal([1, 8], options.Cores);
        Assert.Equal(["--filter", RunArguments.DefaultFilter], options.BenchmarkDotNetArguments);
    }

    [Fact]
    public void Parse_CoresAboveTheMachine_CappedAndDeduplicated()
    {
        var options = RunArguments.Parse(["--cores", "4,1,16,2", "--filter", "*Topology*"], machineCores: 4);

        Assert.Equal([1, 2, 4], options.Cores);
        Assert.Equal(["--filter", "*Topology*"], options.BenchmarkDotNetArguments);
    }

    [Fact]
    public void Run_ReportHelp_ListsOurOptions()
    {
        var output = new StringWriter();

        Assert.Equal(0, Program.Run(["report", "--help"], output, new StringWriter()));
        Assert.Contains("--cores LIST", output.ToString(), StringComparison.Ordinal);
        Assert.Contains("--allow-mixed-commits", output.ToString(), StringComparison.Ordinal);
    }
}
