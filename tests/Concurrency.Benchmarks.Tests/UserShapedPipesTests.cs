using Concurrency.Benchmarks.UserShaped;
using Xunit;

namespace Concurrency.Benchmarks.Tests;

/// <summary>Issue 26's plain program: every path delivers every message (its sum checks), in process and through the command.</summary>
public sealed class UserShapedPipesTests
{
    private static readonly TimeSpan Limit = TimeSpan.FromMinutes(4);

    public static TheoryData<UserShapedPath, UserShapedPhase> PathsAndPhases()
    {
        var data = new TheoryData<UserShapedPath, UserShapedPhase>();
        foreach (var path in Enum.GetValues<UserShapedPath>())
        {
            data.Add(path, UserShapedPhase.Cold);
            data.Add(path, UserShapedPhase.Steady);
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(PathsAndPhases))]
    public async Task Measure_SmallRun_SumChecksAndRateIsPositive(UserShapedPath path, UserShapedPhase phase)
    {
        var result = await Task.Run(() => UserShapedLaunch.Measure(path, phase, Environment.ProcessorCount, 20_000, TimeSpan.FromMilliseconds(50)), TestContext.Current.CancellationToken)
            .WaitAsync(Limit, TestContext.Current.CancellationToken);

        Assert.Equal(path, result.Path);
        Assert.True(result.MessagesPerSecond > 0);
        Assert.True(!ThreadCpu.IsAvailable || result.ProducerCpuNanosecondsPerPost > 0);
        Assert.True(phase == UserShapedPhase.Cold ? result.WarmRounds == 0 : result.WarmRounds > 0);
    }

    [Fact]
    public async Task Run_OneShortLaunch_EveryPathInTheTableAndExitsZero()
    {
        var (output, error) = (new StringWriter(), new StringWriter());

        var exit = await Task.Run(() => Program.Run(["user-shaped", "--messages", "20000", "--launches", "1", "--phases", "cold", "--cores", "1"], output, error), TestContext.Current.CancellationToken)
            .WaitAsync(Limit, TestContext.Current.CancellationToken);

        Assert.True(exit == 0, error.ToString());
        foreach (var path in Enum.GetNames<UserShapedPath>())
        {
            Assert.Contains($"| {path} |", output.ToString(), StringComparison.Ordinal);
        }
    }

    [Fact]
    public void Run_UnknownPath_UsageErrorBeforeAnyLaunch()
    {
        var (output, error) = (new StringWriter(), new StringWriter());

        var exit = Program.Run(["user-shaped", "--paths", "Ring,Nope"], output, error);

        Assert.Equal(Cli.UsageException.ExitCode, exit);
        Assert.Contains("'Nope' is not one of", error.ToString(), StringComparison.Ordinal);
    }
}
