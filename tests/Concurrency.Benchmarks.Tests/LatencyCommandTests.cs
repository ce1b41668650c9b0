using Concurrency.Benchmarks.Backbone.Latency;
using Concurrency.Benchmarks.CrossProcess;
using Concurrency.Benchmarks.HandOff;
using Concurrency.Benchmarks.HandOff.Paths;
using Concurrency.Messaging.Grpc;
using Concurrency.Messaging.Pipes;

namespace Concurrency.Benchmarks.Tests;

/// <summary>The latency command as a smoke test, and one paced path and one paced gRPC client run in-process.</summary>
public sealed class LatencyCommandTests
{
    private static readonly TimeSpan Limit = TimeSpan.FromMinutes(3);

    [Fact]
    public async Task Run_Quick_OneShortLaunchWritesTheTableTheResultSetAndTheCharts()
    {
        using var run = await CommandRun.RunAsync(Limit, "latency", "--quick", "--seconds", "0.1", "--idle", "0.05", "--contenders", "Ring", "BatchDrainMailbox", "PeerClient, async");

        run.AssertSucceeded();
        var table = File.ReadAllText(run.Single("LATENCY-*.md"));
        Assert.Contains("Quick run (--quick)", table, StringComparison.Ordinal);
        Assert.Contains("| Ring | 50% |", table, StringComparison.Ordinal);
        Assert.Contains("| BatchDrainMailbox | 90% |", table, StringComparison.Ordinal);
        Assert.Contains("| PeerClient, async | 50% |", table, StringComparison.Ordinal);
        Assert.Contains("## Idle to first message", table, StringComparison.Ordinal);
        Assert.Contains("| PeerClient, async | ", table[table.IndexOf("## Idle to first message", StringComparison.Ordinal)..], StringComparison.Ordinal);
        var set = ResultSet.Read(run.Single("LATENCY-*.json"));
        Assert.Contains(set.Measurements, m => m.Scenario == LatencyCommand.HandOffScenario && m.Contender == "Ring" && m.Metric == "p99 µs at 50%");
        Assert.Contains(set.Measurements, m => m.Scenario == LatencyCommand.RequestReplyScenario && m.Contender == "BatchDrainMailbox" && m.Metric == "p99.99 µs at 10%");
        Assert.Contains(set.Measurements, m => m.Scenario == LatencyCommand.GrpcScenario && m.Contender == "PeerClient, async" && m.Metric == "p99 µs at 90%");
        Assert.Contains(set.Measurements, m => m.Scenario == LatencyCommand.GrpcScenario && m.Contender == "PeerClient, async" && m.Metric == Measurement.MessagesPerSecond);
        Assert.Contains(set.Measurements, m => m.Scenario == LatencyCommand.IdleScenario && m.Contender == "Ring");
        Assert.Contains(set.Measurements, m => m.Scenario == LatencyCommand.IdleScenario && m.Contender == "PeerClient, async");
        Assert.NotEmpty(Directory.GetFiles(run.Folder, "latency-*-hand-off-50.png"));
        Assert.NotEmpty(Directory.GetFiles(run.Folder, "latency-*-grpc-request-reply-50.png"));
    }

    [Fact]
    public void Run_APacedRing_TimesAndVerifiesEveryMessage_AcrossRepeatsOfTheBlock()
    {
        using var target = new PacedPath(new PipePath(PipeKind.Ring, new PipeOptions { Capacity = 1024 }), "paced ring");
        var messages = 3 * PacedPath.MaxBlock; // three repeats of the block: order and checksum hold across them

        var outcome = target.Run(messages, Schedule.AllNow());
        var paced = target.Run(200, Schedule.At(20_000));

        Assert.Equal(messages, outcome.Latency.Count);
        Assert.Equal(200, paced.Latency.Count);
        Assert.InRange(paced.Seconds, 199.0 / 20_000, 60);  // the schedule held the producer back
        Assert.True(paced.Latency.P50 <= paced.Latency.P99 && paced.Latency.P99 <= paced.Latency.Max);
    }

    [Theory]
    [InlineData(PeerMode.Async)]
    [InlineData(PeerMode.InOrder)]
    public async Task Run_APacedGrpcClient_TimesAndVerifiesEveryReply(PeerMode mode)
    {
        var (flat, paced) = await Task.Run(
                () =>
                {
                    using var target = PacedGrpc.Start(mode, $"paced gRPC {mode}");
                    // More than the in-flight bound: the runner waits for room, and that wait is timed too.
                    return (target.Run(PacedGrpc.MostInFlight + 1000, Schedule.AllNow()), target.Run(200, Schedule.At(2_000)));
                },
                TestContext.Current.CancellationToken)
            .WaitAsync(Limit, TestContext.Current.CancellationToken);

        Assert.Equal(PacedGrpc.MostInFlight + 1000, flat.Latency.Count);
        Assert.Equal(200, paced.Latency.Count);
        Assert.InRange(paced.Seconds, 199.0 / 2_000, 60);  // the schedule held the sender back
        Assert.True(paced.Latency.Curve[0] > 0, "a latency was negative (recorded as 0): a reply before its request was due");
        Assert.True(paced.Latency.P50 <= paced.Latency.P99 && paced.Latency.P99 <= paced.Latency.Max);
    }

    [Fact]
    public void GrpcClients_AreTheRegistrysAsyncAndInOrderClients()
    {
        var names = LatencyCommand.GrpcClients.Select(c => c.Contender.Name).ToList();

        Assert.Equal(["PeerClient, async", "PeerClient, in order"], names);
        Assert.All(LatencyCommand.GrpcClients, c => Assert.Equal(ContenderFamily.Ours, c.Contender.Family));
    }

    [Fact]
    public void Paths_AreTheHeadlinePathsWithoutTheCeilings()
    {
        var names = LatencyCommand.Paths.Select(c => c.Name).ToList();

        Assert.Contains("RxObserveOnTaskPool", names);
        Assert.Contains("DataflowActionBlock", names);
        Assert.Contains("ObserveOnRing", names);
        Assert.DoesNotContain("RawRing", names);
        Assert.DoesNotContain("Ring, pool runner", names); // idle only
        Assert.All(LatencyCommand.Paths, c => Assert.NotEqual(ContenderFamily.Ceiling, c.Family));
    }
}
