using System.Globalization;

namespace Concurrency.Benchmarks.Replicas;

/// <summary>
/// <c>lab replicas --kill</c>: 3 replica processes on loopback and one client process taking 1,000,000 identities (300,000
/// with <c>--quick</c>) closed loop, 8 clients × 8 callers, failing over within 1 s; a replica is killed with SIGKILL at
/// a quarter, a half and three quarters of the identities (replica 1, then 2, then 0: the clients that failed over from
/// one are on the next, so every kill strands some), each time restarted at once on the same port and folder (it waits
/// out its old instance's in-use window before it serves). Every identity is checked in the client process: no
/// duplicates, each caller's increasing; every call answered or failed with a clear error (counted, the first shown).
/// </summary>
internal static class ReplicaKillTrial
{
    private const int Kills = 3;

    public static LabOutcome Run(LabContext context)
    {
        var root = Directory.CreateTempSubdirectory("lab-replicas-kill-").FullName;
        try
        {
            var identities = context.Quick ? 300_000 : 1_000_000;
            using var cluster = ReplicasExperiment.Cluster(root, 3, periodMs: 100, records: false);
            var kills = new List<(double At, TimeSpan Down)>();
            var due = 0; // kills whose point the run has passed; one task does them in turn, none skipped
            var killing = Task.CompletedTask;
            var arguments = ChildArguments.Bare(
            [
                ReplicaLoadCommand.Name, "--kind", "sequence", "--targets", string.Join(',', cluster.Addresses),
                "--clients", "8", "--callers", "8", "--count", identities.ToString(CultureInfo.InvariantCulture), "--failover", "1",
            ]);
            var result = BenchmarkProcess.RunForResult<LoadResult>(arguments, null, (fraction, step) =>
            {
                context.Report(fraction, step);
                if (due < Kills && fraction >= (due + 1) / (double)(Kills + 1))
                {
                    // A different replica each time (1, 2, 0): the clients that failed over from one are on the next, so every kill bites.
                    var victim = cluster.Processes[(due + 1) % cluster.Processes.Count];
                    due++;
                    killing = killing.ContinueWith(
                        _ =>
                        {
                            var started = System.Diagnostics.Stopwatch.GetTimestamp();
                            victim.Kill();
                            victim.Restart();
                            lock (kills)
                            {
                                kills.Add((fraction, System.Diagnostics.Stopwatch.GetElapsedTime(started)));
                            }
                        },
                        CancellationToken.None,
                        TaskContinuationOptions.None,
                        TaskScheduler.Default);
                }
            }, TimeSpan.FromMinutes(15), "the kill run's clients");
            killing.Wait(TimeSpan.FromMinutes(2));
            if (result.Duplicates != 0 || result.OrderViolations != 0 || result.Count < identities)
            {
                throw new LabVerificationException(string.Create(CultureInfo.InvariantCulture, $"The kill run: {result.Count:N0} identities of {identities:N0}, {result.Duplicates} duplicates, {result.OrderViolations} out of a caller's order."));
            }

            var row = new List<string>
            {
                ReplicasExperiment.Cell(result.Count), ReplicasExperiment.Cell(kills.Count), string.Join(" / ", kills.Select(k => k.Down.TotalSeconds.ToString("F1", CultureInfo.InvariantCulture))),
                ReplicasExperiment.Cell(result.Duplicates), ReplicasExperiment.Cell(result.OrderViolations), ReplicasExperiment.Cell(result.Failed), result.FirstFailure ?? "–", ReplicasExperiment.Cell(result.Failovers),
                ReplicasExperiment.Cell(result.PerSecond / 1e3), result.Duplicates == 0 && result.OrderViolations == 0 && kills.Count == Kills ? "met" : "not met",
            };
            return new LabOutcome(
            [
                new LabTable(
                    "Identities across processes: a replica killed with SIGKILL three times (1, 2, then 0)",
                    ["identities", "kills", "kill to serving again, s", "duplicates", "out of a caller's order", "failed calls", "first failure", "failovers", "k identities/s", "verdict"],
                    [row],
                    ["k identities/s"],
                    "3 replicas, period 100 ms; 8 clients × 8 callers, failover after 1 s; each kill restarts the replica on its port and folder at once."),
            ], []);
        }
        finally
        {
            CrossProcess.NatsExperiment.TryDelete(root);
        }
    }
}
