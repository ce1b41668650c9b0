using System.Collections.Concurrent;

namespace Concurrency.Messaging.Grpc.Tests.Replicas;

/// <summary>The counter alone, over a fake disk whose reservations the test holds and releases: what "crash safe" rests on.</summary>
public sealed class ReplicaCounterTests
{
    private const long Jump = 1L << 32;

    [Fact]
    public async Task Reservations_AWaiterFarAboveWhileAPrefetchIsInFlight_NeverTwoWritesAtOnce()
    {
        // Block 4: three hand-outs leave less than half, so a prefetch starts; a floor far above queues behind it.
        var disk = new FakeDisk();
        var counter = new ReplicaCounter(replica: 0, reserved: 0, block: 4, maxJump: Jump, disk.ReserveAsync);
        var first = counter.NextAsync(0).AsTask();
        disk.Complete(await disk.Requested.Reader.ReadAsync(TestContext.Current.CancellationToken).AsTask().DefaultTimeout());
        await first.DefaultTimeout();
        await counter.NextAsync(0).AsTask().DefaultTimeout();
        await counter.NextAsync(0).AsTask().DefaultTimeout(); // counter 3 of 4: the prefetch of the next block starts
        var prefetch = await disk.Requested.Reader.ReadAsync(TestContext.Current.CancellationToken).AsTask().DefaultTimeout();
        var waiters = new[] { counter.NextAsync(0).AsTask(), counter.NextAsync(0).AsTask(), counter.NextAsync(0).AsTask(), counter.NextAsync(ReplicaIdentity.Compose(100, 0)).AsTask() };

        // The prefetch ends: it serves what it covers, and only then may the next reservation start, one at a time.
        disk.Complete(prefetch);
        var all = Task.WhenAll(waiters);
        while (!all.IsCompleted)
        {
            var requested = disk.Requested.Reader.ReadAsync(TestContext.Current.CancellationToken).AsTask();
            if (await Task.WhenAny(requested, all).DefaultTimeout() == requested)
            {
                disk.Complete(await requested);
            }
        }

        var identities = await Task.WhenAll(waiters).DefaultTimeout();
        Assert.Equal(1, disk.MostInFlight);
        Assert.Equal(identities.Length, identities.Distinct().Count());
        Assert.All(identities, identity => Assert.True(ReplicaIdentity.CounterOf(identity) <= disk.LastCompleted));
        Assert.True(identities[^1] > ReplicaIdentity.Compose(100, 0));
    }

    [Fact]
    public void NextAsync_AFloorFarPastTheCounter_IsRefused_AndSpendsNothing()
    {
        var counter = new ReplicaCounter(replica: 0, reserved: 100, block: 100, maxJump: Jump, new FakeDisk(autoComplete: true).ReserveAsync);

        Assert.Throws<ArgumentOutOfRangeException>(() => { _ = counter.NextAsync(ReplicaIdentity.Compose(ReplicaIdentity.MaxCounter - 1, 0)).AsTask(); });
        Assert.Throws<ArgumentOutOfRangeException>(() => { _ = counter.UpdateAsync(long.MaxValue).AsTask(); });
        Assert.Equal(100 + Jump, counter.Raise(ReplicaIdentity.MaxCounter)); // a peer far ahead is taken a step at a time
        Assert.True(counter.Counter < ReplicaIdentity.MaxCounter / 1024);
    }

    [Fact]
    public async Task NextAsync_NewCounter_WaitsForTheFirstReservationThenHandsOutCounterOne()
    {
        var disk = new FakeDisk();
        var counter = new ReplicaCounter(replica: 7, reserved: 0, block: 100, maxJump: Jump, disk.ReserveAsync);

        var first = counter.NextAsync(0).AsTask();
        var target = await disk.Requested.Reader.ReadAsync(TestContext.Current.CancellationToken).AsTask().DefaultTimeout();

        Assert.False(first.IsCompleted); // nothing handed out before the block is durable
        disk.Complete(target);
        Assert.Equal(ReplicaIdentity.Compose(1, 7), await first.DefaultTimeout());
        Assert.True(target >= 1);
    }

    [Fact]
    public async Task NextAsync_ManyCallers_NeverHandsOutACounterPastTheDurableReservation()
    {
        var disk = new FakeDisk(autoComplete: true);
        var counter = new ReplicaCounter(replica: 1, reserved: 0, block: 16, maxJump: Jump, disk.ReserveAsync);
        var identities = new ConcurrentBag<long>();

        await Task.WhenAll(Enumerable.Range(0, 4).Select(_ => Task.Run(async () =>
        {
            for (var i = 0; i < 2_000; i++)
            {
                var identity = await counter.NextAsync(0);
                Assert.True(ReplicaIdentity.CounterOf(identity) <= disk.Durable, "handed out past the durable reservation");
                identities.Add(identity);
            }
        }))).DefaultTimeout();

        Assert.Equal(8_000, identities.Distinct().Count());
        Assert.All(identities, identity => Assert.Equal(1, ReplicaIdentity.ReplicaOf(identity)));
        Assert.True(disk.Writes < 8_000 / 8, $"one fsync per block, not per identity: {disk.Writes} writes");
    }

    [Fact]
    public async Task NextAsync_AfterRestart_StartsPastTheWholeReservedBlock()
    {
        var disk = new FakeDisk(autoComplete: true);
        var counter = new ReplicaCounter(replica: 2, reserved: 5_000, block: 100, maxJump: Jump, disk.ReserveAsync);

        var identity = await counter.NextAsync(0).AsTask().DefaultTimeout();

        Assert.Equal(5_001, ReplicaIdentity.CounterOf(identity)); // everything up to 5,000 may have been handed out before the crash
    }

    [Fact]
    public async Task NextAsync_WithAFloorFromAnotherReplica_AnswersAboveIt()
    {
        var disk = new FakeDisk(autoComplete: true);
        var counter = new ReplicaCounter(replica: 0, reserved: 0, block: 100, maxJump: Jump, disk.ReserveAsync);
        var floor = ReplicaIdentity.Compose(10_000, 3);

        var identity = await counter.NextAsync(floor).AsTask().DefaultTimeout();

        Assert.True(identity > floor);
        Assert.True(ReplicaIdentity.CounterOf(identity) <= disk.Durable);
    }

    [Fact]
    public async Task UpdateAsync_PastTheBlock_CompletesOnlyOnceDurable_AndLaterIdentitiesAreLarger()
    {
        var disk = new FakeDisk();
        var counter = new ReplicaCounter(replica: 4, reserved: 100, block: 50, maxJump: Jump, disk.ReserveAsync);
        var value = ReplicaIdentity.Compose(1_000, 9);

        var update = counter.UpdateAsync(value).AsTask();
        var target = await disk.Requested.Reader.ReadAsync(TestContext.Current.CancellationToken).AsTask().DefaultTimeout();
        Assert.False(update.IsCompleted);
        disk.Complete(target);
        await update.DefaultTimeout();

        Assert.True(disk.Durable >= 1_000, "a restart keeps the update");
        disk.AutoComplete = true;
        Assert.True(await counter.NextAsync(0).AsTask().DefaultTimeout() > value);
    }

    [Fact]
    public void Raise_KeepsTheLarger()
    {
        var counter = new ReplicaCounter(replica: 0, reserved: 1_000, block: 10_000, maxJump: Jump, new FakeDisk(autoComplete: true).ReserveAsync);

        Assert.Equal(1_000, counter.Raise(10));
        Assert.Equal(2_000, counter.Raise(2_000));
        Assert.Equal(2_000, counter.Counter);
    }

    [Fact]
    public async Task NextAsync_AfterAFailedReservation_FailsWaitersAndHandsOutNothingMore()
    {
        var disk = new FakeDisk();
        var counter = new ReplicaCounter(replica: 0, reserved: 0, block: 10, maxJump: Jump, disk.ReserveAsync);

        var waiting = counter.NextAsync(0).AsTask();
        await disk.Requested.Reader.ReadAsync(TestContext.Current.CancellationToken).AsTask().DefaultTimeout();
        disk.Fail(new IOException("disk full"));

        await Assert.ThrowsAsync<IOException>(() => waiting.DefaultTimeout());
        Assert.Throws<IOException>(() => { _ = counter.NextAsync(0).AsTask(); });
    }

    [Fact]
    public async Task NextAsync_AtTheLastCounter_FailsClearly()
    {
        var counter = new ReplicaCounter(replica: 0, reserved: ReplicaIdentity.MaxCounter, block: 10, maxJump: Jump, new FakeDisk(autoComplete: true).ReserveAsync);

        var error = Assert.Throws<InvalidOperationException>(() => { _ = counter.NextAsync(0).AsTask(); });
        Assert.Contains("no identity left", error.Message, StringComparison.Ordinal);
        await Task.CompletedTask;
    }

    /// <summary>A checkpoint in memory: each reservation waits for the test (or completes at once) and records what is durable.</summary>
    private sealed class FakeDisk(bool autoComplete = false)
    {
        private readonly ConcurrentDictionary<long, TaskCompletionSource> _pending = new();
        private long _durable;
        private int _writes;
        private int _inFlight;
        private int _mostInFlight;

        public System.Threading.Channels.Channel<long> Requested { get; } = System.Threading.Channels.Channel.CreateUnbounded<long>();

        public bool AutoComplete { get; set; } = autoComplete;

        public long Durable => Interlocked.Read(ref _durable);

        public int Writes => Volatile.Read(ref _writes);

        /// <summary>Gets the most reservations that were in flight at once: the counter promises one.</summary>
        public int MostInFlight => Volatile.Read(ref _mostInFlight);

        /// <summary>Gets the target of the reservation that completed last (what a file written last-wins would hold).</summary>
        public long LastCompleted { get; private set; }

        public Task ReserveAsync(long target)
        {
            Interlocked.Increment(ref _writes);
            var inFlight = Interlocked.Increment(ref _inFlight);
            InterlockedMax(ref _mostInFlight, inFlight);
            if (AutoComplete)
            {
                MakeDurable(target);
                Interlocked.Decrement(ref _inFlight);
                return Task.CompletedTask;
            }

            var written = _pending.GetOrAdd(target, _ => new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously));
            Requested.Writer.TryWrite(target);
            return written.Task;
        }

        public void Complete(long target)
        {
            MakeDurable(target);
            Assert.True(_pending.TryRemove(target, out var written));
            Interlocked.Decrement(ref _inFlight);
            written.SetResult();
        }

        private static void InterlockedMax(ref int location, int value)
        {
            var seen = Volatile.Read(ref location);
            while (value > seen && Interlocked.CompareExchange(ref location, value, seen) is var now && now != seen)
            {
                seen = now;
            }
        }

        public void Fail(Exception error)
        {
            foreach (var (_, written) in _pending)
            {
                written.TrySetException(error);
            }
        }

        private void MakeDurable(long target)
        {
            LastCompleted = target;
            long seen;
            do
            {
                seen = Interlocked.Read(ref _durable);
            }
            while (target > seen && Interlocked.CompareExchange(ref _durable, target, seen) != seen);
        }
    }
}
