namespace Concurrency.Messaging.Tests.Internal;

/// <summary>
/// The idle flag's turn side: after the release, the look decides whether the turn keeps its consumer. A look that throws
/// must keep it (a producer must not be able to claim it), or a producer's turn would run beside the turn that goes on to
/// fail, and the consumer would exit twice.
/// </summary>
public sealed class IdleFlagTests
{
    [Fact]
    public void ReleaseThenLook_NothingCame_ConsumerIdleAndAProducerClaimsIt()
    {
        var queue = new LookingQueue(Look.Nothing);

        Assert.False(queue.Flag.ReleaseThenLook<long, LookingQueue>(ref queue));
        Assert.True(queue.Flag.TryClaim());
        Assert.False(queue.Flag.TryClaim()); // claimed once: the second producer schedules nothing
    }

    [Fact]
    public void ReleaseThenLook_SomethingCame_TurnKeepsTheConsumer()
    {
        var queue = new LookingQueue(Look.Work);

        Assert.True(queue.Flag.ReleaseThenLook<long, LookingQueue>(ref queue));
        Assert.False(queue.Flag.TryClaim());
    }

    [Fact]
    public void ReleaseThenLook_LookThrows_TurnKeepsTheConsumerSoNoProducerSchedulesASecondTurn()
    {
        var queue = new LookingQueue(Look.Throws);

        Assert.True(queue.Flag.ReleaseThenLook<long, LookingQueue>(ref queue));
        Assert.False(queue.Flag.TryClaim());
    }

    private enum Look
    {
        Nothing,
        Work,
        Throws,
    }

    /// <summary>A queue whose only behaviour is what its look after the release finds; the flag starts held by a turn.</summary>
    private struct LookingQueue : ITurnQueue<long>
    {
        public IdleFlag Flag;
        private readonly Look _look;

        public LookingQueue(Look look)
        {
            _look = look;
            Assert.True(Flag.TryClaim()); // a turn runs: the flag is Scheduled, as when the runner calls a take
        }

        public readonly bool HasWork() => _look switch
        {
            Look.Work => true,
            Look.Throws => throw new InvalidOperationException("the queue failed"),
            _ => false,
        };

        public TurnTake Take(ref Slot<long>[] batch, int most, bool idleIfEmpty, out int count, out long one) =>
            throw new NotSupportedException();

        public bool TryClaimIdle() => Flag.TryClaim();
    }
}
