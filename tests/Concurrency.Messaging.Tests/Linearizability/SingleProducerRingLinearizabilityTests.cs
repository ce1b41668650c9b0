using CsCheck;

namespace Concurrency.Messaging.Tests.Linearizability;

/// <summary>
/// The ring's own protocol (HasRoom/Publish against ReadTail/Take/Release) under real
/// parallel calls, checked by CsCheck's <c>SampleParallel</c> against a fixed-capacity FIFO: some order of the operations
/// that keeps each thread's own order must explain every publish answer (room or full), every take (value or empty) and
/// what is left. A stale cached head that refuses a publish with room, a take that sees a slot before its value, a released
/// slot overwritten before it was read, all show as an answer no order explains.
/// </summary>
/// <remarks>
/// Batches (read the tail once, handle, then release) are deliberately not an operation here: a batch's slots stay occupied
/// until its release, so a publish racing a batch can be refused although the consumer already read those messages. That is
/// the ring's design (in-flight messages count against capacity), and no single-step FIFO model can express it; a first
/// version of this test with a batch operation found exactly that interleaving.
/// <para>
/// Whether the consumer is idle, and the wake-up of an idle one, is not the ring's: its consumer keeps an idle flag beside it
/// (<c>RingQueue</c>), checked by the idle-flag tests and the wake-up races of every queue (<c>IdleWakeRaceTests</c>).
/// </para>
/// </remarks>
public sealed class SingleProducerRingLinearizabilityTests
{
    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(4)]
    public void PublishAndTake_ParallelProducerAndConsumer_LinearizableAgainstFifo(int capacity)
        => Run(capacity, iter: 400, time: -1);

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(4)]
    [Trait("Category", "Stress")]
    public void PublishAndTake_ParallelProducerAndConsumer_TwoSeconds_LinearizableAgainstFifo(int capacity)
        => Run(capacity, iter: -1, time: 2);

    private static void Run(int capacity, long iter, int time)
    {
        var publish = GenOperation.Create<RingUnderTest, RingQueueModel, int>(
            Gen.Int[0, 99], v => $" TryPublish({v})", (actual, v) => actual.TryPublish(v), (model, v) => model.TryPublish(v));
        var take = GenOperation.Create<RingUnderTest, RingQueueModel>(" TryTake", actual => actual.TryTake(), model => model.Take());

        LinearizabilityCheck.Run(
            () => (new RingUnderTest(capacity), new RingQueueModel(capacity)),
            [publish, publish, take, take],
            maxOperations: (Sequential: 6, Parallel: 6),
            iter,
            time);
    }
}
