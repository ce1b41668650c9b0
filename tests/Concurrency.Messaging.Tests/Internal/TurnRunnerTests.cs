using System.Threading.Channels;

namespace Concurrency.Messaging.Tests.Internal;

/// <summary>
/// The runner itself, over the two queues a test can hold (one that marks idle under its lock, one with a flag beside it)
/// and one that throws: the budget and the yield, the deliver-count-fault loop, a failing queue.
/// </summary>
public sealed class TurnRunnerTests
{
    private const int Budget = 10;

    public enum QueueKind
    {
        BatchDrain,      // takes the whole backlog at once: later turns start with what the last one left
        ChannelOne,      // a message at a time, flag beside the queue (a channel pipe's consumer)
        ChannelBatch,    // up to the budget at a time (a channel mailbox)
    }

    /// <summary>Every kind of queue the runner takes from.</summary>
    public static TheoryData<QueueKind> Kinds => [.. Enum.GetValues<QueueKind>()];

    [Theory]
    [MemberData(nameof(Kinds))]
    public async Task Run_BacklogOverBudget_YieldsAfterEachBudget(QueueKind kind)
    {
        var probe = Fill(kind, 95);

        probe.Start();
        await probe.Ended.DefaultTimeout();

        Assert.Equal([10, 10, 10, 10, 10, 10, 10, 10, 10, 5], probe.TurnSizes);
        Assert.Equal(95, probe.Handled);
        Assert.Equal(95, probe.CountedHandled); // the owner's count, given once per turn
        Assert.Equal(0, probe.Failures);
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public async Task Run_HandlerThrows_OwnerToldOnceAndDeliveryGoesOn(QueueKind kind)
    {
        var probe = Fill(kind, 30, message => ThrowIf(message == 7));

        probe.Start();
        await probe.Ended.DefaultTimeout();

        Assert.Equal(1, probe.Failures);
        Assert.Equal(29, probe.Handled);
        Assert.Equal(29, probe.CountedHandled); // the message that threw is not counted
        Assert.Equal(0, probe.Unhandled);
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public async Task Run_OwnerStopsMidBacklog_RestCountedNotHandled(QueueKind kind)
    {
        ITurnProbe? probe = null;
        probe = Fill(kind, 30, message =>
        {
            if (message == 11)
            {
                probe!.Stop();
            }
        });

        probe.Start();
        await probe.Ended.DefaultTimeout();

        Assert.Equal(12, probe.Handled);
        Assert.Equal(12, probe.CountedHandled);
        Assert.Equal(18, probe.Unhandled);
    }

    [Fact]
    public async Task Run_QueueThrows_OwnerEndsTheConsumerAndItIsNeverScheduledAgain()
    {
        var probe = new TurnProbe<ThrowingQueue>(default, Budget);
        probe.Start();

        probe.Notify();
        await probe.Ended.DefaultTimeout();

        Assert.IsType<InvalidOperationException>(probe.QueueFailure);
        Assert.False(probe.Queue.TryClaimIdle()); // the flag stays claimed: no post can schedule a turn again
        Assert.Equal(1, probe.Queue.Takes);
    }

    private static void ThrowIf(bool fail)
    {
        if (fail)
        {
            throw new InvalidOperationException("The handler's own failure.");
        }
    }

    /// <summary>A probe of <paramref name="kind"/> with <paramref name="messages"/> posted (0, 1, ...) and the queue closed, held before its first turn.</summary>
    private static ITurnProbe Fill(QueueKind kind, int messages, Action<long>? handler = null)
    {
        if (kind == QueueKind.BatchDrain)
        {
            var drain = new TurnProbe<BatchDrainQueue<long>>(default, Budget, handler);
            drain.Queue.UseScheduledConsumer(drain);
            for (var i = 0; i < messages; i++)
            {
                Assert.True(drain.Queue.TryEnqueue(i));
            }

            drain.Queue.Close();
            return drain;
        }

        var lane = Channel.CreateUnbounded<long>();
        var channel = new TurnProbe<ChannelTurnQueue<long>>(new ChannelTurnQueue<long>(lane.Reader, batches: kind == QueueKind.ChannelBatch), Budget, handler);
        for (var i = 0; i < messages; i++)
        {
            Assert.True(lane.Writer.TryWrite(i));
            channel.Notify();
        }

        lane.Writer.Complete();
        channel.Queue.WritersDone(); // as the pipe and the mailbox close: the end is the queue's flag, not the reader's Completion
        channel.Notify();
        return channel;
    }

    /// <summary>A queue whose take throws, as a broken collection's would; it keeps an idle flag, as the flagged queues do.</summary>
    internal struct ThrowingQueue : ITurnQueue<long>
    {
        private IdleFlag _idle;

        public int Takes { get; private set; }

        public TurnTake Take(ref Slot<long>[] batch, int most, bool idleIfEmpty, out int count, out long one)
        {
            Takes++;
            throw new InvalidOperationException("The queue's own failure.");
        }

        public readonly bool HasWork() => true;

        public bool TryClaimIdle() => _idle.TryClaim();
    }
}
