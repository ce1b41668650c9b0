using Xunit;

namespace Concurrency.Benchmarks.Tests;

/// <summary>The plain loop as a smoke test: <c>loop --quick</c> runs its launch in a child process and writes its table.</summary>
public sealed class LoopCommandTests
{
    private static readonly TimeSpan Limit = TimeSpan.FromMinutes(4);

    [Fact]
    public async Task Run_Quick_OneShortLaunchWritesTheTableAndExitsZero()
    {
        var directory = Directory.CreateTempSubdirectory("loop-quick-");
        try
        {
            var (output, error) = (new StringWriter(), new StringWriter());

            var exit = await Task.Run(() => Program.Run(["loop", "--quick", "--out", directory.FullName], output, error), TestContext.Current.CancellationToken)
                .WaitAsync(Limit, TestContext.Current.CancellationToken);

            Assert.True(exit == 0, error.ToString());
            Assert.Contains("Launch 1 of 1:", output.ToString(), StringComparison.Ordinal);
            var table = File.ReadAllText(Assert.Single(Directory.GetFiles(directory.FullName, "LOOP-*.md")));
            Assert.Contains("Quick run (--quick)", table, StringComparison.Ordinal);
            Assert.Contains("100,000 preallocated messages", table, StringComparison.Ordinal);
        }
        finally
        {
            directory.Delete(recursive: true);
        }
    }
}
