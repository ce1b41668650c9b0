using System.Globalization;
using Concurrency.Benchmarks.CrossProcess;

namespace Concurrency.Benchmarks.Tests.Grpc;

/// <summary>The gRPC experiment runs quick against a real peer process, through its verification, so a broken one fails CI without timing anything.</summary>
public sealed class GrpcExperimentTests
{
    private static readonly TimeSpan Limit = TimeSpan.FromMinutes(3);

    // What Goal says of a goal judged on one launch.
    private static readonly string[] GoalVerdicts = ["not met", "met (median)", "met, even the lowest"];

    [Fact]
    public async Task Grpc_QuickRun_EveryModeBaselineAndPeerIsMeasuredAndVerified()
    {
        var nats = NatsServer.Find() is not null;
        var outcome = await Task.Run(() => new GrpcExperiment().Run(new LabContext(Environment.ProcessorCount, quick: true)), TestContext.Current.CancellationToken)
            .WaitAsync(Limit, TestContext.Current.CancellationToken);

        var modes = outcome.Tables[0];
        Assert.Equal(12, modes.Rows.Count); // three modes at four buffer sizes
        Assert.All(modes.Rows, row => Assert.Equal(modes.Columns.Count, row.Count));
        var baselines = outcome.Tables[1];
        Assert.Contains(baselines.Rows, row => row[0].StartsWith("naive", StringComparison.Ordinal));
        Assert.Contains(baselines.Rows, row => row[0].StartsWith("Proto.Remote, Tell", StringComparison.Ordinal));
        Assert.All(baselines.Rows.Take(5), row => Assert.True(double.Parse(row[2].Split(' ')[0], CultureInfo.InvariantCulture) > 0, row[0])); // allocated B/msg
        Assert.Contains(baselines.Rows, row => row[0].StartsWith("plain echo", StringComparison.Ordinal));
        Assert.Equal(nats ? 2 : 0, baselines.Rows.Count(row => row[0].StartsWith("NATS request/reply", StringComparison.Ordinal))); // 1 and 100 senders
        Assert.Equal(nats, !baselines.Note!.Contains(NatsServer.SkipLine, StringComparison.Ordinal));
        Assert.Equal(nats ? 2 : 0, outcome.Figures!.Count(f => f.Contender == GrpcContenders.NatsRequest));
        Assert.Contains(outcome.Figures!, f => f.Contender == GrpcContenders.PlainEcho256);

        // The server's CPU per message, against the peer process: a figure (ticks of 10 ms may round a quick run's to 0).
        Assert.Equal("server CPU ns/msg", baselines.Columns[3]);
        Assert.All(baselines.Rows.Take(5), row => Assert.True(double.Parse(row[3].Split(' ')[0], CultureInfo.InvariantCulture) >= 0, row[0]));
        var serverCpu = Assert.Single(outcome.Tables, t => t.Title.StartsWith("Server CPU per message", StringComparison.Ordinal));
        Assert.Equal(["async 100 senders", "raw batched 256", "naive", "plain echo 256"], serverCpu.Rows.Select(row => row[0]));
        Assert.Contains(outcome.Figures!, f => f.Contender == GrpcContenders.PlainEcho256 && f.Metric == Concurrency.Benchmarks.Backbone.Runs.Measurement.ServerCpuNanosecondsPerMessage);

        // Ratios: naive, raw, ours ÷ plain echo, in-order, two Proto.Remote, and NATS where it ran.
        Assert.Equal(nats ? 7 : 6, outcome.Tables[2].Rows.Count);
        Assert.StartsWith("async ÷ naive (head to head)", outcome.Tables[2].Rows[0][0], StringComparison.Ordinal);
        Assert.Contains(outcome.Tables[2].Rows, row => row[0] == "async, 100 senders ÷ plain grpc echo 256 (head to head)" && row[2] == "≥ 0.8");
        var headToHead = Assert.Single(outcome.Tables, t => t.Title.StartsWith("Head to head", StringComparison.Ordinal));
        Assert.Equal(["async 100 senders", "raw batched 256", "naive", "plain echo 256"], headToHead.Rows.Select(row => row[0]));
        Assert.All(headToHead.Rows, row => Assert.Equal(headToHead.Columns.Count, row.Count));
        Assert.Equal(1 + 4 + 1, headToHead.Columns.Count); // the contender, four rounds (the design for four), the median
        Assert.Equal(["Sync", "Async", "InOrder"], outcome.Charts[0].Series.Select(s => s.Label));
        var restart = Assert.Single(outcome.Tables, t => t.Title.Contains("killed", StringComparison.Ordinal));
        Assert.Equal("0", restart.Rows[0][2]); // lost
    }

    [Fact]
    public async Task Grpc_QuickRunInProcess_PeersHostedHereEveryModeVerifiedAndTheTablesSaySo()
    {
        var peers = LabPeers.Parse(null, null, inProcess: true);

        // As where nats-server is not installed: the NATS rows are skipped with one line saying so.
        var outcome = await Task.Run(() => new GrpcExperiment(findNatsServer: () => null).Run(new LabContext(Environment.ProcessorCount, quick: true, peers: peers)), TestContext.Current.CancellationToken)
            .WaitAsync(Limit, TestContext.Current.CancellationToken);

        var modes = outcome.Tables[0];
        Assert.Equal(12, modes.Rows.Count);
        Assert.Contains("--in-process", modes.Note, StringComparison.Ordinal);
        Assert.Contains(outcome.Tables[1].Rows, row => row[0].StartsWith("Proto.Remote, RequestAsync", StringComparison.Ordinal));
        Assert.Contains(outcome.Tables[1].Rows, row => row[0].StartsWith("plain echo", StringComparison.Ordinal));
        Assert.DoesNotContain(outcome.Tables[1].Rows, row => row[0].StartsWith("NATS", StringComparison.Ordinal));
        Assert.Equal(1, outcome.Tables.Sum(t => (t.Note ?? string.Empty).Split(NatsServer.SkipLine).Length - 1)); // said once, in the baselines' note
        Assert.DoesNotContain(outcome.Figures!, f => f.Contender == GrpcContenders.NatsRequest);
        Assert.DoesNotContain(outcome.Tables, t => t.Title.Contains("killed", StringComparison.Ordinal)); // the restart run needs a peer process
        Assert.All(outcome.Tables[1].Rows, row => Assert.Equal("–", row[3])); // no server CPU: the server shares this process
        Assert.DoesNotContain(outcome.Tables, t => t.Title.StartsWith("Server CPU per message", StringComparison.Ordinal));
        Assert.All(outcome.Tables[2].Rows, row => Assert.Contains(row[3], GoalVerdicts)); // each goal judged by Goal, on this launch
    }

    [Fact]
    public void Serve_Help_SaysHowToAimTheLabAtIt()
    {
        var output = new StringWriter();

        Assert.Equal(0, Program.Run(["serve", "--help"], output, new StringWriter()));

        Assert.Contains("lab grpc --server", output.ToString(), StringComparison.Ordinal);
    }
}
