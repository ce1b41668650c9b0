using CsCheck;

namespace Concurrency.Messaging.Tests.Linearizability;

/// <summary>
/// <c>TryPost</c> and <c>TryComplete</c> called from real parallel threads (CsCheck 5's <c>SampleParallel</c>) on pipes whose
/// consumers are held inside their handlers, checked against a sequential bounded FIFO: some order of the operations that
/// keeps each thread's own order must explain every answer (accepted, refused because full, refused because completed,
/// completed or already completed) and exactly what the consumers handle once released. Holding the consumers is what makes
/// the bounded answers predictable, so bounded pipes, broadcast gates and work-sharing lanes are covered too. The ring
/// promises one producer, so its posts are serialized by a lock; they still race completion and the consumers' threads.
/// </summary>
/// <remarks>
/// CsCheck checks each run against every order of the parallel operations that respects each thread's program order (not
/// real time), which is sequential consistency of the observed answers; with completion and capacity in the model, that
/// is enough to catch a post accepted after a completion that claimed to close the pipe, a post refused while there was
/// room, a lost or duplicated message, or a reordering within one thread.
/// </remarks>
public sealed class HeldPipeLinearizabilityTests
{
    private const int Room = 3;

    private static readonly HeldPipeCase[] Cases =
    [
        new("ObserveOn", PipeKind.ObserveOn, new PipeOptions { Producers = 4 }, 1, null),
        new("ObserveOn broadcast x2", PipeKind.ObserveOn, new PipeOptions { Producers = 4 }, 2, null),
        new("ReaderWriterLockQueue", PipeKind.ReaderWriterLockQueue, new PipeOptions { Producers = 4 }, 1, null),
        new("ReaderWriterLockQueue sharing x2", PipeKind.ReaderWriterLockQueue, Sharing(new PipeOptions { Producers = 4 }), 2, null),
        new("BatchDrainQueue", PipeKind.BatchDrainQueue, new PipeOptions { Producers = 4 }, 1, null),
        new("BatchDrainQueue broadcast x2", PipeKind.BatchDrainQueue, new PipeOptions { Producers = 4 }, 2, null),
        new("BatchDrainQueue sharing x2", PipeKind.BatchDrainQueue, Sharing(new PipeOptions { Producers = 4 }), 2, null),
        new("Channel", PipeKind.Channel, new PipeOptions { Producers = 4 }, 1, null),
        new("Channel bounded", PipeKind.Channel, new PipeOptions { Producers = 4, Capacity = Room }, 1, Room),
        new("Channel bounded broadcast x2", PipeKind.Channel, new PipeOptions { Producers = 4, Capacity = Room }, 2, Room),
        new("Channel bounded sharing x2", PipeKind.Channel, Sharing(new PipeOptions { Producers = 4, Capacity = Room }), 2, Room),
        new("BlockingCollection", PipeKind.BlockingCollection, new PipeOptions { Producers = 4 }, 1, null),
        new("BlockingCollection bounded", PipeKind.BlockingCollection, new PipeOptions { Producers = 4, Capacity = Room }, 1, Room),
        new("BlockingCollection bounded broadcast x2", PipeKind.BlockingCollection, new PipeOptions { Producers = 4, Capacity = Room }, 2, Room),
        new("BlockingCollection bounded sharing x2", PipeKind.BlockingCollection, Sharing(new PipeOptions { Producers = 4, Capacity = Room }), 2, Room),

        // A ring hands a run's slots back before delivering it only once half the ring is taken (2 of its 4 here), so the
        // held sentinel, a run of one, keeps its slot.
        new("Ring", PipeKind.Ring, new PipeOptions { Capacity = Room + 1 }, 1, Room, SerializeProducers: true),
        new("Ring broadcast x2", PipeKind.Ring, new PipeOptions { Capacity = Room + 1 }, 2, Room, SerializeProducers: true),
    ];

    public static TheoryData<string> CaseNames() => [.. Cases.Select(c => c.Name)];

    [Theory]
    [MemberData(nameof(CaseNames))]
    public void TryPostAndTryComplete_ConsumersHeld_LinearizableAgainstBoundedFifo(string name)
        => Run(Cases.Single(c => c.Name == name), iter: 100, time: -1);

    [Theory]
    [MemberData(nameof(CaseNames))]
    [Trait("Category", "Stress")]
    public void TryPostAndTryComplete_ConsumersHeld_OneSecond_LinearizableAgainstBoundedFifo(string name)
        => Run(Cases.Single(c => c.Name == name), iter: -1, time: 1);

    private static PipeOptions Sharing(PipeOptions options) => options with { Distribution = PipeDistribution.WorkSharing };

    private static void Run(HeldPipeCase @case, long iter, int time)
    {
        var post = GenOperation.Create<HeldPipe, BoundedFifoModel, int>(
            Gen.Int[0, 99], v => $" TryPost({v})", (actual, v) => actual.TryPost(v), (model, v) => model.TryPost(v));
        var complete = GenOperation.Create<HeldPipe, BoundedFifoModel>(
            " TryComplete", actual => actual.TryComplete(), model => model.TryComplete());

        // Posts three times as likely as completion, so most runs fill a bounded pipe before (or while) it completes.
        LinearizabilityCheck.Run(
            () => (new HeldPipe(@case), new BoundedFifoModel(@case.RoomWhileHeld)),
            [post, post, post, complete],
            maxOperations: (Sequential: 4, Parallel: 6),
            iter,
            time);
    }
}
