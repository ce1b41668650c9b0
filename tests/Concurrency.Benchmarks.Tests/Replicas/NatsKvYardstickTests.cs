using Concurrency.Benchmarks.Replicas;
using Concurrency.Messaging.Nats.Tests;
using Concurrency.Messaging.Tests;
using NATS.Client.JetStream;
using NATS.Client.KeyValueStore;

namespace Concurrency.Benchmarks.Tests.Replicas;

/// <summary>
/// The identity yardsticks kept in JetStream's key-value store, against a real nats-server where one is installed:
/// several instances on one key, each with its own connection and several callers, never hand out an identity twice,
/// and each caller sees its identities increase; blocks are reserved one at a time; the key outlives a server crash.
/// </summary>
public sealed class NatsKvYardstickTests
{
    private const string Bucket = "IDS";
    private const string Sequence = "sequence";
    private const string Blocks = "blocks";

    // Small blocks, so that a short run reserves many and the instances' reservations collide.
    private const int SmallBlock = 7;

    [Theory]
    [InlineData(Sequence)]
    [InlineData(Blocks)]
    public async Task NextAsync_ThreeInstancesWithFourCallersEachOnOneKey_EveryIdentityOnceAndEachCallerIncreasing(string kind)
    {
        const int Instances = 3, CallersEach = 4, Each = 40;
        using var server = NatsTestServer.StartOrSkip();
        var ct = TestContext.Current.CancellationToken;
        var connections = Enumerable.Range(0, Instances).Select(i => server.Connect($"instance-{i}")).ToArray();
        var yardsticks = await Task.WhenAll(connections.Select(c => Open(kind, c, "ids"))).DefaultTimeout();
        try
        {
            // Act: every caller of every instance at once, each keeping what it got in order.
            var taken = await Task.WhenAll(yardsticks.SelectMany(y => Enumerable.Range(0, CallersEach).Select(_ => Task.Run(async () =>
            {
                var mine = new List<long>(Each);
                for (var i = 0; i < Each; i++)
                {
                    mine.Add(await y.NextAsync(ct));
                }

                return mine;
            }, ct)))).DefaultTimeout();

            // Assert: each caller increasing; all of them together, each identity once.
            Assert.All(taken, mine => Assert.True(mine.SequenceEqual(mine.Order()) && mine.Distinct().Count() == Each, "a caller's identities did not increase"));
            var all = taken.SelectMany(mine => mine).ToList();
            const int Total = Instances * CallersEach * Each;
            Assert.Equal(Total, all.Distinct().Count());
            if (kind == Sequence)
            {
                // One write per identity, none lost: exactly 1..Total (count and checksum).
                Assert.Equal(Enumerable.Range(1, Total).Select(n => (long)n), all.Order());
                Assert.Equal((long)Total * (Total + 1) / 2, all.Sum());
            }
            else
            {
                // Within the blocks the instances reserved: what is left of each last block is a gap, never a repeat.
                var reserved = yardsticks.Sum(y => y.Reservations) * SmallBlock;
                Assert.InRange(all.Min(), 1, SmallBlock);
                Assert.InRange(all.Max(), Total, reserved);
            }
        }
        finally
        {
            foreach (var yardstick in yardsticks)
            {
                await yardstick.DisposeAsync();
            }

            foreach (var connection in connections)
            {
                await connection.DisposeAsync();
            }
        }
    }

    [Fact]
    public async Task NextAsync_SixteenCallersUsingUpBlocks_OneReservationPerBlockAndNoConflicts()
    {
        const int Callers = 16, Each = 50, Block = 10;
        using var server = NatsTestServer.StartOrSkip();
        await using var connection = server.Connect("blocks");
        var ct = TestContext.Current.CancellationToken;
        await using var blocks = await NatsKvBlocks.OpenAsync(connection, Bucket, "ids", Block, ct).DefaultTimeout();

        var taken = await Task.WhenAll(Enumerable.Range(0, Callers).Select(_ => Task.Run(async () =>
        {
            var mine = new List<long>(Each);
            for (var i = 0; i < Each; i++)
            {
                mine.Add(await blocks.NextAsync(ct));
            }

            return mine;
        }, ct))).DefaultTimeout();

        // Callers that found the block used up waited for the one reservation in flight: had each reserved its own, the
        // reservations would outnumber the blocks used, and this instance's writes would collide with each other.
        const int Total = Callers * Each;
        Assert.Equal(Enumerable.Range(1, Total).Select(n => (long)n), taken.SelectMany(mine => mine).Order());
        Assert.Equal(Total / Block, blocks.Reservations);
        Assert.Equal(0, blocks.Conflicts);
    }

    [Fact]
    public async Task NextAsync_KeyDeleted_RefusedRatherThanCountingFromOneAgain()
    {
        using var server = NatsTestServer.StartOrSkip();
        await using var connection = server.Connect("sequence");
        var ct = TestContext.Current.CancellationToken;
        await using var sequence = await NatsKvSequence.OpenAsync(connection, Bucket, "ids", ct).DefaultTimeout();
        Assert.Equal(1, await sequence.NextAsync(ct).AsTask().DefaultTimeout());

        var store = await new NatsKVContext(new NatsJSContext(connection)).GetStoreAsync(Bucket, ct).AsTask().DefaultTimeout();
        await store.DeleteAsync("ids", cancellationToken: ct).AsTask().DefaultTimeout();

        await Assert.ThrowsAsync<InvalidOperationException>(() => sequence.NextAsync(ct).AsTask()).DefaultTimeout();
    }

    [Fact]
    public async Task NextAsync_ServerKilledAndRestarted_CountsGoOnFromTheStoredKey()
    {
        using var server = NatsTestServer.StartOrSkip();
        await using var connection = server.Connect("durable");
        var ct = TestContext.Current.CancellationToken;
        await using var sequence = await NatsKvSequence.OpenAsync(connection, Bucket, "sequence", ct).DefaultTimeout();
        await using (var first = await NatsKvBlocks.OpenAsync(connection, Bucket, "blocks", SmallBlock, ct).DefaultTimeout())
        {
            Assert.Equal(1, await first.NextAsync(ct).AsTask().DefaultTimeout());
        }

        for (var n = 1; n <= 3; n++)
        {
            Assert.Equal(n, await sequence.NextAsync(ct).AsTask().DefaultTimeout());
        }

        server.Server.Kill();
        server.Server.Restart();
        await TestTimeouts.WaitUntilAsync(() => connection.ConnectionState == NatsConnectionState.Open, "the connection never came back");

        Assert.Equal(4, await sequence.NextAsync(ct).AsTask().DefaultTimeout());
        await using var second = await NatsKvBlocks.OpenAsync(connection, Bucket, "blocks", SmallBlock, ct).DefaultTimeout();
        Assert.Equal(SmallBlock + 1, await second.NextAsync(ct).AsTask().DefaultTimeout());
    }

    [Theory]
    [InlineData(Sequence)]
    [InlineData(Blocks)]
    public async Task NextAsync_AfterDisposeAsync_ObjectDisposed(string kind)
    {
        using var server = NatsTestServer.StartOrSkip();
        await using var connection = server.Connect("disposed");
        var ct = TestContext.Current.CancellationToken;
        var yardstick = await Open(kind, connection, "ids").DefaultTimeout();
        Assert.Equal(1, await yardstick.NextAsync(ct).DefaultTimeout());

        await yardstick.DisposeAsync().AsTask().DefaultTimeout();
        await yardstick.DisposeAsync().AsTask().DefaultTimeout();

        await Assert.ThrowsAsync<ObjectDisposedException>(() => yardstick.NextAsync(ct)).DefaultTimeout();
    }

    /// <summary>Either yardstick behind the calls these tests make.</summary>
    private sealed record Yardstick(Func<CancellationToken, Task<long>> NextAsync, Func<long> ReservationsNow, IAsyncDisposable Owner)
    {
        public long Reservations => ReservationsNow();

        public ValueTask DisposeAsync() => Owner.DisposeAsync();
    }

    private static async Task<Yardstick> Open(string kind, NatsConnection connection, string key)
    {
        var ct = TestContext.Current.CancellationToken;
        if (kind == Sequence)
        {
            var sequence = await NatsKvSequence.OpenAsync(connection, Bucket, key, ct);
            return new Yardstick(c => sequence.NextAsync(c).AsTask(), () => 0, sequence);
        }

        var blocks = await NatsKvBlocks.OpenAsync(connection, Bucket, key, SmallBlock, ct);
        return new Yardstick(c => blocks.NextAsync(c).AsTask(), () => blocks.Reservations, blocks);
    }
}
