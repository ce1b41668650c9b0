using System.Globalization;

namespace Concurrency.Benchmarks.Tests.Replicas;

/// <summary>
/// <c>lab replicas --quick</c> and <c>--kill --quick</c> end to end, in CI: every path (the replica processes, the client
/// process, the yardsticks, the staleness records, the crash run) runs and verifies itself, and the report has its rows.
/// </summary>
public sealed class ReplicasExperimentTests
{
    [Fact]
    public async Task LabReplicas_Quick_EveryContenderRowStalenessAndGoal()
    {
        using var run = await CommandRun.RunAsync(TimeSpan.FromMinutes(3), "lab", "replicas", "--quick");

        Assert.True(run.Exit == 0, run.Error);
        var report = File.ReadAllText(Path.Combine(run.Folder, "replicas.md"));
        foreach (var row in new[] { "PeerServer echo", "SequenceReplica ×1", "SequenceReplica ×3", "SequenceReplica ×5", "sequence service, one process" })
        {
            Assert.Contains("| " + row, report, StringComparison.Ordinal);
        }

        Assert.Contains(Concurrency.Benchmarks.CrossProcess.NatsServer.Find() is null ? "nats-server is not installed" : "| NATS KV blocks ×3", report, StringComparison.Ordinal);
        foreach (var period in new[] { 10, 100, 1000 })
        {
            Assert.Contains(string.Create(CultureInfo.InvariantCulture, $"| {period} ms |"), report, StringComparison.Ordinal);
        }

        Assert.Contains("one replica ÷ one echo PeerServer", report, StringComparison.Ordinal);
    }

    [Fact]
    public async Task LabReplicas_QuickWithPeers_MeasuresTheReplicasGiven_AndSaysStalenessNeedsOneClock()
    {
        var root = Directory.CreateTempSubdirectory("lab-replicas-peers-").FullName;
        var addresses = Concurrency.Benchmarks.CrossProcess.LoopbackPorts.FreeAddresses(2);
        var replicas = new List<Concurrency.Benchmarks.Replicas.ReplicaProcess>();
        try
        {
            replicas.Add(Concurrency.Benchmarks.Replicas.ReplicaProcess.Start(0, addresses, Path.Combine(root, "0"), periodMs: 100));
            replicas.Add(Concurrency.Benchmarks.Replicas.ReplicaProcess.Start(1, addresses, Path.Combine(root, "1"), periodMs: 100));

            using var run = await CommandRun.RunAsync(TimeSpan.FromMinutes(2), "lab", "replicas", "--quick", "--peers", string.Join(',', addresses));

            Assert.True(run.Exit == 0, run.Error);
            var report = File.ReadAllText(Path.Combine(run.Folder, "replicas.md"));
            Assert.Contains("| SequenceReplica ×2 (--peers)", report, StringComparison.Ordinal);
            Assert.Contains("needs one clock", report, StringComparison.Ordinal);
            Assert.DoesNotContain("PeerServer echo", report, StringComparison.Ordinal);
        }
        finally
        {
            replicas.ForEach(replica => replica.Dispose());
            Directory.Delete(root, recursive: true);
        }
    }

    [Fact]
    public async Task LabReplicasKill_Quick_ThreeKillsNoDuplicateNoCallerOutOfOrder()
    {
        using var run = await CommandRun.RunAsync(TimeSpan.FromMinutes(2), "lab", "replicas", "--kill", "--quick");

        Assert.True(run.Exit == 0, run.Error);
        var row = File.ReadAllLines(Path.Combine(run.Folder, "replicas.md")).Single(line => line.StartsWith("| 300,", StringComparison.Ordinal));
        var cells = row.Split('|', StringSplitOptions.TrimEntries);
        Assert.Equal("3", cells[2]);   // kills
        Assert.Equal("0", cells[4]);   // duplicates
        Assert.Equal("0", cells[5]);   // out of a caller's order
        Assert.Equal("met", cells[10]);
    }
}
