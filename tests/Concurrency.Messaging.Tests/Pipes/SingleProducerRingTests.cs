namespace Concurrency.Messaging.Tests.Pipes;

/// <summary>The ring's room, step by step: the producer's cached head is refreshed only when the ring looks full.</summary>
public sealed class SingleProducerRingTests
{
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
