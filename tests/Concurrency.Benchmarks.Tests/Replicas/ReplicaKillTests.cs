using System.Collections.Concurrent;
using Concurrency.Benchmarks.CrossProcess;
using Concurrency.Benchmarks.Replicas;
using Concurrency.Messaging.Grpc;
using Concurrency.Messaging.Tests;

namespace Concurrency.Benchmarks.Tests.Replicas;

/// <summary>
/// The cluster across processes, as the file log's crash probe does it: three <c>replica</c> processes on loopback, clients
/// in the test's process, and one replica killed with SIGKILL mid-run and restarted on its port and folder. Every
/// identity once, each caller's increasing, every call answered.
/// </summary>
public sealed class ReplicaKillTests
{
    [Fact]
    public async Task Cluster_OneReplicaKilledAndRestartedMidRun_NoIdentityTwice_EachCallerIncreasing_EveryCallAnswered()
    {
        const int Clients = 4, CallersEach = 4, Total = 40_000;
        var root = Directory.CreateTempSubdirectory("replica-kill-").FullName;
        var addresses = LoopbackPorts.FreeAddresses(3);
        var replicas = new List<ReplicaProcess>();
        try
        {
            for (var id = 0; id < 3; id++)
            {
                replicas.Add(ReplicaProcess.Start(id, addresses, Path.Combine(root, id.ToString(System.Globalization.CultureInfo.InvariantCulture)), periodMs: 50, block: 1_000));
            }

            var clients = Enumerable.Range(0, Clients)
                .Select(i => SequenceClient.Create(addresses, new SequenceClientOptions { FirstReplica = i % 3, FailoverTimeout = TimeSpan.FromSeconds(1) }))
                .ToArray();
            var all = new ConcurrentBag<long>();
            var count = 0;
            var killed = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            var victim = replicas[1];

            // Act: the callers run until Total identities; at a third of them, replica 1 dies and comes back.
            var callers = clients.SelectMany(client => Enumerable.Range(0, CallersEach).Select(caller => Task.Run(async () =>
            {
                var last = 0L;
                while (Volatile.Read(ref count) < Total)
                {
                    var identity = await client.NextAsync(TestContext.Current.CancellationToken);
                    Assert.True(identity > last, $"a caller got {identity} after {last}");
                    last = identity;
                    all.Add(identity);
                    if (Interlocked.Increment(ref count) == Total / 3)
                    {
                        _ = Task.Run(() =>
                        {
                            victim.Kill();
                            victim.Restart();
                            killed.SetResult();
                        });
                    }
                }
            }))).ToArray();
            await Task.WhenAll(callers).WaitAsync(TimeSpan.FromMinutes(2), TestContext.Current.CancellationToken);
            await killed.Task.DefaultTimeout();

            // Assert: everything handed out, once; replica 1 served before and after its crash (it restarted past its block).
            Assert.Equal(all.Count, all.Distinct().Count());
            Assert.True(all.Count >= Total);
            Assert.Contains(all, identity => ReplicaIdentity.ReplicaOf(identity) == 1);
            foreach (var client in clients)
            {
                await client.DisposeAsync();
            }
        }
        finally
        {
            replicas.ForEach(replica => replica.Dispose());
            Directory.Delete(root, recursive: true);
        }
    }
}
