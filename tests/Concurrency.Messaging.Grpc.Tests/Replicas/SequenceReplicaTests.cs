using System.Collections.Concurrent;
using Concurrency.Benchmarks.CrossProcess;

namespace Concurrency.Messaging.Grpc.Tests.Replicas;

/// <summary>
/// The cluster's guarantees (docs/replicas.md), each shown with replicas in one process: unique, monotonic for a client
/// across a failover, bounded staleness (on a fake clock: a round is the test's to start), available with every peer down,
/// an id in use refused, and a restart past everything handed out before. <c>kill -9</c> is the multi-process test's.
/// </summary>
public sealed class SequenceReplicaTests
{
    private static readonly TimeSpan Never = TimeSpan.FromHours(1);

    [Fact]
    public async Task Cluster_ConcurrentClientsOnEveryReplica_GetUniqueIdentities_EachClientsIncreasing()
    {
        await using var cluster = new ReplicaCluster(3);
        for (var id = 0; id < 3; id++)
        {
            await cluster.StartAsync(cluster.Options(id) with { SyncPeriod = TimeSpan.FromMilliseconds(20) });
        }

        var all = new ConcurrentBag<long>();
        await Task.WhenAll(Enumerable.Range(0, 6).Select(c => Task.Run(async () =>
        {
            await using var client = cluster.Client(first: c % 3);
            var last = 0L;
            for (var i = 0; i < 300; i++)
            {
                var identity = await client.NextAsync(TestContext.Current.CancellationToken);
                Assert.True(identity > last, $"client {c}: {identity} after {last}");
                last = identity;
                all.Add(identity);
            }
        }))).DefaultTimeout();

        Assert.Equal(1_800, all.Distinct().Count());
        Assert.Equal(3, all.Select(ReplicaIdentity.ReplicaOf).Distinct().Count()); // every replica answered some
    }

    [Fact]
    public async Task Client_MovedToAnotherReplica_GetsALargerIdentity_ThoughThatReplicaNeverSynchronized()
    {
        await using var cluster = new ReplicaCluster(2);
        await cluster.StartAsync(cluster.Options(0, peers: []) with { SyncPeriod = Never });
        await cluster.StartAsync(cluster.Options(1, peers: []) with { SyncPeriod = Never });
        await using var client = cluster.Client(first: 0, failover: TimeSpan.FromSeconds(2));
        var last = 0L;
        for (var i = 0; i < 100; i++)
        {
            last = await client.NextAsync(TestContext.Current.CancellationToken).AsTask().DefaultTimeout();
        }

        Assert.Equal(0, client.Current); // warm: connected, compiled, not yet moved
        Assert.Equal(0, ReplicaIdentity.ReplicaOf(last));
        var before = client.FailoverCount;

        await cluster.StopAsync(0);
        var moved = await client.NextAsync(TestContext.Current.CancellationToken).AsTask().DefaultTimeout();

        Assert.Equal(1, client.Current);
        Assert.Equal(1, ReplicaIdentity.ReplicaOf(moved));
        Assert.True(moved > last, $"{moved} after {last}: the client's floor went with it");
        Assert.Equal(before + 1, client.FailoverCount);
    }

    [Fact]
    public async Task Round_OnceComplete_EveryReplicaAnswersAboveEverythingHandedOutBefore()
    {
        var clock = new FakeTimeProvider();
        await using var cluster = new ReplicaCluster(3);

        // Replica i exchanges with the replicas before it: one exchange per pair per period, every peer up at each start.
        for (var id = 0; id < 3; id++)
        {
            await cluster.StartAsync(cluster.Options(id, peers: Enumerable.Range(0, id)) with { SyncPeriod = TimeSpan.FromSeconds(1), TimeProvider = clock });
        }

        await using var onZero = cluster.Client(first: 0);
        var before = 0L;
        for (var i = 0; i < 1_000; i++)
        {
            before = await onZero.NextAsync(TestContext.Current.CancellationToken).AsTask().DefaultTimeout();
        }

        await using var onOne = cluster.Client(first: 1);
        Assert.True(await onOne.NextAsync(TestContext.Current.CancellationToken).AsTask().DefaultTimeout() < before, "with no round yet, replica 1 is behind");

        var exchanges = (cluster[1].ExchangeCount, cluster[2].ExchangeCount);
        clock.Advance(TimeSpan.FromSeconds(1)); // the round begins: every timer fires once
        await TestTimeouts.WaitUntilAsync(
            () => cluster[1].ExchangeCount > exchanges.Item1 && cluster[2].ExchangeCount >= exchanges.Item2 + 2,
            "the round's three exchanges never completed");

        for (var id = 0; id < 3; id++)
        {
            await using var client = cluster.Client(first: id);
            Assert.True(await client.NextAsync(TestContext.Current.CancellationToken).AsTask().DefaultTimeout() > before, $"replica {id} answered below an identity handed out before the round");
        }
    }

    [Fact]
    public async Task Replica_WithEveryPeerDown_KeepsHandingOut_AndCatchesUpWhenTheyReturn()
    {
        await using var cluster = new ReplicaCluster(2);
        var quick = new Func<SequenceReplicaOptions, SequenceReplicaOptions>(options => options with
        {
            SyncPeriod = TimeSpan.FromMilliseconds(50),
            SyncTimeout = TimeSpan.FromMilliseconds(300),
            PeerClient = new PeerClientOptions { MaxReconnectDelay = TimeSpan.FromMilliseconds(200) },
        });
        var alone = await cluster.StartAsync(quick(cluster.Options(1)));
        await using var onOne = cluster.Client(first: 1);
        Assert.True(await onOne.NextAsync(TestContext.Current.CancellationToken).AsTask().DefaultTimeout() > 0);

        var returned = await cluster.StartAsync(quick(cluster.Options(0, peers: [])));
        await using var onZero = cluster.Client(first: 0);
        var ahead = 0L;
        for (var i = 0; i < 2_000; i++)
        {
            ahead = await onZero.NextAsync(TestContext.Current.CancellationToken).AsTask().DefaultTimeout();
        }

        await TestTimeouts.WaitUntilAsync(() => alone.Counter >= ReplicaIdentity.CounterOf(ahead), "replica 1 never caught up with its returned peer");
        Assert.True(await onOne.NextAsync(TestContext.Current.CancellationToken).AsTask().DefaultTimeout() > ahead);
        Assert.True(alone.FailedExchangeCount > 0, "the peer was down at first");
        Assert.Equal(0, returned.RefusalCount);
    }

    [Fact]
    public async Task Start_UnderAnIdALiveReplicaUses_IsRefused()
    {
        await using var cluster = new ReplicaCluster(2);
        await cluster.StartAsync(cluster.Options(0, peers: []));
        await cluster.StartAsync(cluster.Options(1) with { SyncPeriod = TimeSpan.FromMilliseconds(50) });
        var twin = cluster.Options(1) with
        {
            DataFolder = Path.Combine(cluster.Root, "twin"),
            Server = new PeerServerOptions(),
            InUseWindow = TimeSpan.FromMilliseconds(500),
            SyncTimeout = TimeSpan.FromSeconds(1),
        };

        var error = await Assert.ThrowsAsync<InvalidOperationException>(() => SequenceReplica.StartAsync(twin, TestContext.Current.CancellationToken)).DefaultTimeout();
        Assert.Contains("in use", error.Message, StringComparison.Ordinal);

        // Replica 1 knows id 0 from the answers to its own exchanges: a second id 0 is refused there too.
        var sameAsPeer = cluster.Options(0, peers: [1]) with { DataFolder = Path.Combine(cluster.Root, "other"), Server = new PeerServerOptions(), InUseWindow = TimeSpan.FromMilliseconds(500), SyncTimeout = TimeSpan.FromSeconds(1) };
        error = await Assert.ThrowsAsync<InvalidOperationException>(() => SequenceReplica.StartAsync(sameAsPeer, TestContext.Current.CancellationToken)).DefaultTimeout();
        Assert.Contains("in use", error.Message, StringComparison.Ordinal);

        await Assert.ThrowsAsync<IOException>(() => SequenceReplica.StartAsync(cluster.Options(1) with { Server = new PeerServerOptions() }, TestContext.Current.CancellationToken)).DefaultTimeout();
    }

    [Fact]
    public async Task Replica_RefusedWhileServing_HandsOutNothingMore()
    {
        // Replica 0 keeps its time on a fake clock: the test says when an id it heard has lapsed.
        var clock = new FakeTimeProvider();
        await using var cluster = new ReplicaCluster(2);
        await cluster.StartAsync(cluster.Options(0, peers: []) with { TimeProvider = clock });
        var first = await cluster.StartAsync(cluster.Options(1) with { SyncPeriod = Never });
        await using var client = SequenceClient.Create([cluster.Addresses[1]], new SequenceClientOptions { FailoverTimeout = TimeSpan.FromSeconds(5) });
        Assert.Equal(1, ReplicaIdentity.ReplicaOf(await client.NextAsync(TestContext.Current.CancellationToken).AsTask().DefaultTimeout()));

        // A twin of id 1 (its own folder and address) starts once replica 0 last heard the first one long ago.
        clock.Advance(TimeSpan.FromMinutes(1));
        await using var twin = await SequenceReplica.StartAsync(cluster.Options(1) with { DataFolder = Path.Combine(cluster.Root, "twin"), Server = new PeerServerOptions(), SyncPeriod = Never }, TestContext.Current.CancellationToken).DefaultTimeout();

        // The first one's next exchange is refused (replica 0 heard the twin just now): it hands out nothing more.
        await first.SyncNowAsync(TestContext.Current.CancellationToken).DefaultTimeout();
        Assert.Equal(1, first.RefusalCount);
        await Assert.ThrowsAsync<SequenceUnavailableException>(() => client.NextAsync(TestContext.Current.CancellationToken).AsTask()).DefaultTimeout();
    }

    [Fact]
    public async Task Restart_OnTheSameFolder_AfterItsOldInstanceLapsed_HandsOutAboveEverythingBefore()
    {
        await using var cluster = new ReplicaCluster(2);
        await cluster.StartAsync(cluster.Options(0, peers: []));
        var options = cluster.Options(1) with { SyncPeriod = TimeSpan.FromMilliseconds(50), InUseWindow = TimeSpan.FromMilliseconds(400), BlockSize = 64 };
        await cluster.StartAsync(options);
        await using var client = cluster.Client(first: 1);
        var before = new List<long>();
        for (var i = 0; i < 500; i++)
        {
            before.Add(await client.NextAsync(TestContext.Current.CancellationToken).AsTask().DefaultTimeout());
        }

        await cluster.StopAsync(1);
        await cluster.StartAsync(options); // replica 0 heard the old instance just now: the new one waits for the window

        await using var fresh = SequenceClient.Create([cluster.Addresses[1]]);
        var after = await fresh.NextAsync(TestContext.Current.CancellationToken).AsTask().DefaultTimeout();
        Assert.True(after > before.Max());
    }

    [Fact]
    public async Task Replica_MalformedRequests_GetAClearError_AndHandOutNothing()
    {
        await using var cluster = new ReplicaCluster(1);
        var replica = await cluster.StartAsync(cluster.Options(0));
        await using var raw = await PeerClient.ConnectAsync(cluster.Addresses[0], cancellationToken: TestContext.Current.CancellationToken).DefaultTimeout();

        foreach (var request in new[]
        {
            new PeerMessage("next", "raw", new byte[3]),
            new PeerMessage("update", "raw", BitConverter.GetBytes(-5L)),
            new PeerMessage("sync", "raw", new byte[7]),
            new PeerMessage("drop-tables", "raw", ReadOnlyMemory<byte>.Empty),
        })
        {
            var reply = await raw.SendAsync(request, TestContext.Current.CancellationToken).DefaultTimeout();
            Assert.Equal("error", reply.Type);
            Assert.Contains("does not understand", System.Text.Encoding.UTF8.GetString(reply.Payload.Span), StringComparison.Ordinal);
        }

        Assert.Equal(0, replica.HandedOutCount);
    }

    [Fact]
    public async Task ClusterKey_ReplicasWithIt_Synchronize_AndAClientWithTheTokenButNotTheKeyCannotPoseAsOne()
    {
        var key = "a secret of sixteen bytes or more"u8.ToArray();
        await using var cluster = new ReplicaCluster(3);
        var zero = await cluster.StartAsync(cluster.Options(0, peers: []) with { ClusterKey = key });
        var one = await cluster.StartAsync(cluster.Options(1, peers: [0]) with { ClusterKey = key, SyncPeriod = Never });
        var other = await cluster.StartAsync(cluster.Options(2, peers: [0]) with { ClusterKey = "another secret, as long as that"u8.ToArray(), SyncPeriod = Never });

        // Same key: the exchange completes. Another key: it fails, counted, and nothing is raised or refused.
        await one.SyncNowAsync(TestContext.Current.CancellationToken).DefaultTimeout();
        await other.SyncNowAsync(TestContext.Current.CancellationToken).DefaultTimeout();
        Assert.True(one.ExchangeCount >= 1);
        Assert.Equal(0, other.ExchangeCount);
        Assert.True(other.FailedExchangeCount >= 1);

        // A client's forged exchange (a counter far ahead, an id of its choosing) without the key: an error, nothing moved.
        await using var raw = await PeerClient.ConnectAsync(cluster.Addresses[0], cancellationToken: TestContext.Current.CancellationToken).DefaultTimeout();
        var before = zero.Counter;
        var forged = await raw.SendAsync(new PeerMessage("sync", "raw", ReplicaWire.SyncPayload(7, 42, before + 1_000_000, key: null)), TestContext.Current.CancellationToken).DefaultTimeout();
        Assert.Equal("error", forged.Type);
        Assert.Equal(before, zero.Counter);
        Assert.Equal(0, zero.RefusalCount);
    }

    [Fact]
    public async Task Client_NoReplicaAnswers_FailsWithinItsBound()
    {
        var dead = LoopbackPorts.FreeAddresses(2);
        await using var client = SequenceClient.Create(dead, new SequenceClientOptions { FailoverTimeout = TimeSpan.FromMilliseconds(200) });

        var started = System.Diagnostics.Stopwatch.GetTimestamp();
        var error = await Assert.ThrowsAsync<SequenceUnavailableException>(() => client.NextAsync(TestContext.Current.CancellationToken).AsTask()).DefaultTimeout();
        Assert.True(System.Diagnostics.Stopwatch.GetElapsedTime(started) < TimeSpan.FromSeconds(10), "two replicas, 200 ms each (the peer client's sweep adds up to a quarter of it)");
        Assert.Contains(dead[0], error.Message, StringComparison.Ordinal);
        Assert.Contains(dead[1], error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Options_Invalid_AreRefusedClearly()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => new ReplicaNode(new SequenceReplicaOptions { Id = 1024, DataFolder = "x" }));
        Assert.Throws<ArgumentException>(() => new ReplicaNode(new SequenceReplicaOptions { Id = 1 }));
        Assert.Throws<ArgumentOutOfRangeException>(() => new ReplicaNode(new SequenceReplicaOptions { Id = 1, DataFolder = "x", SyncPeriod = TimeSpan.Zero }));
        Assert.Throws<ArgumentException>(() => new ReplicaNode(new SequenceReplicaOptions { Id = 1, DataFolder = "x", ClusterKey = new byte[8] }));
        Assert.Throws<ArgumentException>(() => new ReplicaNode(new SequenceReplicaOptions { Id = 1, DataFolder = "x", Peers = ["ftp://somewhere"] }));
        Assert.Throws<ArgumentException>(() => SequenceClient.Create([]));
        Assert.Throws<ArgumentException>(() => SequenceClient.Create(["not a url"]));
        Assert.Throws<ArgumentOutOfRangeException>(() => SequenceClient.Create(["http://127.0.0.1:1"], new SequenceClientOptions { FirstReplica = 1 }));
    }
}
