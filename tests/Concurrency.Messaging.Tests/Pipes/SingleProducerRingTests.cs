using Concurrency.Messaging.Pipes;

namespace Concurrency.Messaging.Tests.Pipes;

/// <summary>The ring's park and wake, step by step: a parked consumer has no timeout, so a lost wake-up would strand it.</summary>
public sealed class SingleProducerRingTests
{
    [Fact]
    public void Park_ConsumerBlockedThenProducerPublishes_WokenNotTimedOut()
    {
        var ring = new SingleProducerRing<int>(4);
        var woken = false;
        var consumer = new Thread(() => woken = ring.Park(ring.Head, static () => false, TestTimeouts.Default)) { IsBackground = true };
        consumer.Start();

        // Publish only once the consumer is really blocked in its wait, so only the wake can release it.
        Assert.True(SpinWait.SpinUntil(() => ring.ConsumerParked && consumer.ThreadState.HasFlag(ThreadState.WaitSleepJoin), TestTimeouts.Default));
        Assert.True(ring.HasRoom());
        ring.Publish(42);
        Assert.True(ring.ConsumerParked);
        ring.WakeConsumer();

        Assert.True(consumer.Join(TestTimeouts.Default));
        Assert.True(woken, "the parked consumer was not woken by the publish and waited out its timeout");
        Assert.False(ring.ConsumerParked);
        Assert.Equal(42, ring.Take(ring.Head));
    }

    [Fact]
    public void Park_TailAlreadyMoved_ReturnsWithoutWaiting()
    {
        var ring = new SingleProducerRing<int>(4);
        ring.Publish(1);

        Assert.True(ring.Park(0, static () => false, TestTimeouts.Default));
        Assert.False(ring.ConsumerParked);
    }

    [Fact]
    public void HasRoom_FullThenReleased_SeesTheRoomOnlyAfterTheRelease()
    {
        var ring = new SingleProducerRing<int>(2);
        ring.Publish(1);
        ring.Publish(2);
        Assert.False(ring.HasRoom());
        Assert.False(ring.HasRoomNow());

        ring.Release(1);

        Assert.True(ring.HasRoomNow());
        Assert.True(ring.HasRoom());
    }
}
