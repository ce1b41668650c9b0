using Concurrency.Benchmarks.Backbone.Runs;

namespace Concurrency.Benchmarks.Tests;

/// <summary>
/// The serving children's protocol (<c>serve</c> here): the parent gets what the child said before "ready", stops it by
/// closing its standard input and gets what it did; a child that refuses its arguments is an error that carries its words.
/// </summary>
public sealed class ServerProcessTests
{
    private static readonly TimeSpan Limit = TimeSpan.FromMinutes(2);

    [Fact]
    public async Task Start_ServeOnLoopback_SaysWhereItListensAndStopSaysWhatItServed()
    {
        var (said, stopped) = await Task.Run(() =>
        {
            using var server = ServerProcess.Start(["serve", "--urls", "http://127.0.0.1:0", "--proto-remote-port", "0"], "the test's server");
            return (server.Said, server.Stop());
        }, TestContext.Current.CancellationToken).WaitAsync(Limit, TestContext.Current.CancellationToken);

        Assert.Contains(said, line => line.StartsWith("peer http://127.0.0.1:", StringComparison.Ordinal));
        Assert.Contains(said, line => line.StartsWith("plain-echo http://127.0.0.1:", StringComparison.Ordinal));
        Assert.DoesNotContain(ServerProcess.Ready, said);
        Assert.StartsWith("served: 0 handled", stopped, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Start_ChildRefusesItsArguments_ThrowsWithWhatItSaidOnStandardError()
    {
        var failure = await Assert.ThrowsAsync<InvalidOperationException>(() => Task.Run(
            () => ServerProcess.Start(["serve", "--proto-remote-port", "-1"], "the test's server"),
            TestContext.Current.CancellationToken)).WaitAsync(Limit, TestContext.Current.CancellationToken);

        Assert.StartsWith("the test's server did not start:", failure.Message, StringComparison.Ordinal);
        Assert.Contains("--proto-remote-port needs a whole number", failure.Message, StringComparison.Ordinal);
    }
}
