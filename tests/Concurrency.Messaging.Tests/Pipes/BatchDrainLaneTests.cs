namespace Concurrency.Messaging.Tests.Pipes;

/// <summary>
/// The batch-drain lane with a scheduled consumer (an actor's mailbox, the pooled pipe), driven from one thread so that
/// what it allocates is counted exactly: the consumer's turns are played by hand, as the mailbox plays them.
/// </summary>
public sealed class BatchDrainLaneTests
{
    private const int Burst = 100;

    [Fact]
    public void TryTake_FirstBurstIntoAFreshLane_AllocatesOnlyTheLanesOwnGrowth()
    {
        PlayBurst(new ScheduledTurns(), 0); // types loaded and code compiled before anything is counted
        var turns = new ScheduledTurns();
        var growth = GrowthBytes(Burst - 1); // the first message waits apart; the rest grow the array

        var before = GC.GetAllocatedBytesForCurrentThread();
        PlayBurst(turns, 0);
        var first = GC.GetAllocatedBytesForCurrentThread() - before;
        before = GC.GetAllocatedBytesForCurrentThread();
        PlayBurst(turns, Burst);
        var second = GC.GetAllocatedBytesForCurrentThread() - before;

        Assert.Equal(2 * Burst, turns.Handled);
        Assert.True(first <= growth, $"The first burst allocated {first:N0} B; the lane's own growth is {growth:N0} B.");
        Assert.Equal(0, second);
    }

    [Fact]
    public void TryTake_BurstThroughLanesInTurn_LaterLanesReuseTheArraysOfEarlierOnes()
    {
        // A burst handed from lane to lane (tokens round a ring of actors, each reached by all of them together): each
        // lane that goes idle gives its grown arrays back, so the next lane's growth costs nothing. Were each lane to keep
        // its own, a ring of ten thousand would hold ten thousand grown arrays for the collector to copy during the burst.
        PlayBurst(new ScheduledTurns(), 0); // types loaded, code compiled, and the pool holds the first lane's arrays
        var lanes = Enumerable.Range(0, 8).Select(_ => new ScheduledTurns()).ToArray();
        var bytes = new long[lanes.Length];
        for (var i = 0; i < lanes.Length; i++)
        {
            var before = GC.GetAllocatedBytesForCurrentThread();
            PlayBurst(lanes[i], 0);
            bytes[i] = GC.GetAllocatedBytesForCurrentThread() - before;
        }

        Assert.All(lanes, lane => Assert.Equal(Burst, lane.Handled));
        Assert.All(lanes, lane => Assert.True(lane.BatchLength <= BatchDrainQueue<long>.InitialCapacity, $"An idle consumer holds an array of {lane.BatchLength}."));
        Assert.Equal(new long[lanes.Length], bytes);
    }

    [Fact]
    public void TryTake_PostsWhileATurnHoldsItsBatch_EveryMessageOnceInOrder()
    {
        var turns = new ScheduledTurns();
        var next = 0L;
        for (var round = 1; round <= 20; round++)
        {
            // Round r posts r messages, takes, posts r more while the turn holds its batch, then drains: every size of
            // backlog, from one message waiting apart to arrays grown and handed back and forth.
            for (var i = 0; i < round; i++)
            {
                turns.Post(next++);
            }

            turns.TakeOnce();
            for (var i = 0; i < round; i++)
            {
                turns.Post(next++);
            }

            turns.Drain();
        }

        Assert.Equal(next, turns.Handled);
    }

    /// <summary>Posts <see cref="Burst"/> messages numbered from <paramref name="from"/>, then plays turns until idle.</summary>
    private static void PlayBurst(ScheduledTurns turns, long from)
    {
        for (var i = 0; i < Burst; i++)
        {
            turns.Post(from + i);
        }

        turns.Drain();
    }

    /// <summary>What the lane's array allocates on its way to holding <paramref name="messages"/>, measured here.</summary>
    private static long GrowthBytes(int messages)
    {
        var before = GC.GetAllocatedBytesForCurrentThread();
        for (var length = BatchDrainQueue<long>.InitialCapacity; ; length *= 2)
        {
            GC.KeepAlive(new Slot<long>[length]);
            if (length >= messages)
            {
                return GC.GetAllocatedBytesForCurrentThread() - before;
            }
        }
    }

    /// <summary>
    /// A lane's scheduled consumer whose turns the test plays itself. It counts the messages handled in the order posted
    /// (numbered from 0, each once); the first that breaks the order, a refused post, or a turn scheduled while one was
    /// already due fails the test at once. Nothing on the way allocates, so the lane's allocations are all that is counted.
    /// </summary>
    private sealed class ScheduledTurns : ITurn
    {
        private readonly BatchDrainLane<long> _lane = new();
        private Slot<long>[] _batch = [];
        private int _count;
        private bool _scheduled;

        public ScheduledTurns() => _lane.UseScheduledConsumer(this);

        public long Handled { get; private set; }

        public int BatchLength => _batch.Length;

        public void Schedule()
        {
            if (_scheduled)
            {
                Assert.Fail("A turn was scheduled twice.");
            }

            _scheduled = true;
        }

        public void RunTurn() => Assert.Fail("The test plays the turns itself.");

        public void Execute() => RunTurn();

        public void Post(long message)
        {
            if (!_lane.TryEnqueue(message))
            {
                Assert.Fail("The lane refused a post.");
            }
        }

        /// <summary>One take, as a turn starts it; the batch taken is held, not handled, until the next take.</summary>
        public void TakeOnce()
        {
            if (!_scheduled)
            {
                Assert.Fail("A message is waiting but no turn was scheduled.");
            }

            for (var i = 0; i < _count; i++)
            {
                Handle(_batch[i].Value);
            }

            Array.Clear(_batch, 0, _count); // as the mailbox does: the lane may reuse this array
            _count = 0;
            switch (_lane.Queue.Take(ref _batch, int.MaxValue, idleIfEmpty: true, out _count, out var one))
            {
                case TurnTake.TakenOne:
                    Handle(one);
                    break;
                case TurnTake.Idle:
                    _scheduled = false;
                    break;
                case TurnTake.Completed:
                    Assert.Fail("The lane was never closed.");
                    break;
            }
        }

        /// <summary>Takes and handles until the lane finds the consumer idle.</summary>
        public void Drain()
        {
            while (_scheduled)
            {
                TakeOnce();
            }
        }

        private void Handle(long message)
        {
            if (message != Handled)
            {
                Assert.Fail($"Message {message} came where {Handled} was due.");
            }

            Handled++;
        }
    }
}
