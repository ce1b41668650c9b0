using Concurrency.Messaging.Pipes;
using CsCheck;
using Xunit;

namespace Concurrency.Messaging.Tests.Linearizability;

/// <summary>
/// Several threads post at once (CsCheck 5's <c>SampleParallel</c>, on up to four threads) into pipes declared for several
/// producers, while the consumers run. The held-consumer suite (<see cref="HeldPipeLinearizabilityTests"/>) pins one
/// global order; here the pipe may interleave the producers any way it likes, so the check is the contract itself: the
/// answers must be explained by some order of the operations that keeps each thread's own order (posts accepted until a
/// completion, refused after it, one completion wins), every accepted post is handled exactly once per consumer
/// (broadcast) or in all (work-sharing), nothing refused is handled, and each producer's messages arrive in the order it
/// posted them. Bounded pipes are posted to with a blocking (bounded) <c>Post</c>, since free consumers make "full" a
/// matter of timing.
/// </summary>
public sealed class ConcurrentProducersLinearizabilityTests
{
    private const int Producers = 4;

    private static readonly ConcurrentProducersCase[] Cases =
    [
        new("BatchDrainQueue", PipeKind.BatchDrainQueue, new PipeOptions { Producers = Producers }, 1),
        new("BatchDrainQueue broadcast x2", PipeKind.BatchDrainQueue, new PipeOptions { Producers = Producers }, 2),
        new("BatchDrainQueue sharing x2", PipeKind.BatchDrainQueue, Sharing(new PipeOptions { Producers = Producers }), 2),
        new("ReaderWriterLockQueue", PipeKind.ReaderWriterLockQueue, new PipeOptions { Producers = Producers }, 1),
        new("ReaderWriterLockQueue sharing x2", PipeKind.ReaderWriterLockQueue, Sharing(new PipeOptions { Producers = Producers }), 2),
        new("Channel", PipeKind.Channel, new PipeOptions { Producers = Producers }, 1),
        new("Channel broadcast x2", PipeKind.Channel, new PipeOptions { Producers = Producers }, 2),
        new("Channel bounded", PipeKind.Channel, new PipeOptions { Producers = Producers, Capacity = 2 }, 1),
        new("Channel bounded broadcast x2", PipeKind.Channel, new PipeOptions { Producers = Producers, Capacity = 2 }, 2),
        new("Channel bounded sharing x2", PipeKind.Channel, Sharing(new PipeOptions { Producers = Producers, Capacity = 2 }), 2),
        new("BlockingCollection", PipeKind.BlockingCollection, new PipeOptions { Producers = Producers }, 1),
        new("BlockingCollection broadcast x2", PipeKind.BlockingCollection, new PipeOptions { Producers = Producers }, 2),
        new("BlockingCollection bounded", PipeKind.BlockingCollection, new PipeOptions { Producers = Producers, Capacity = 2 }, 1),
        new("BlockingCollection bounded broadcast x2", PipeKind.BlockingCollection, new PipeOptions { Producers = Producers, Capacity = 2 }, 2),
        new("BlockingCollection bounded sharing x2", PipeKind.BlockingCollection, Sharing(new PipeOptions { Producers = Producers, Capacity = 2 }), 2),
    ];

    /// <summary>
    /// Found by this suite, left to the pipes' owners: the channel and BlockingCollection pipes close their lanes without
    /// the broadcast gate, so a completion can land between a post's lanes. The post returns as accepted, only the
    /// consumers before the cut handle it, and the rest is counted in UnhandledCount although nothing faulted or aborted.
    /// </summary>
    private const string BroadcastCutByCompletion =
        "Known pipe bug: a completion can land between a broadcast post's lanes (Close does not take the broadcast gate), "
        + "so an accepted post reaches only some consumers. Failed 4 runs of 4 (Channel, BlockingCollection bounded) "
        + "here; the unbounded BlockingCollection window is narrower but the same. Unskip with the fix.";

    public static IEnumerable<TheoryDataRow<string>> CaseNames()
        => Cases.Select(c => new TheoryDataRow<string>(c.Name)
        {
            Skip = c.Kind is PipeKind.Channel or PipeKind.BlockingCollection && c.Consumers > 1 && !c.Sharing
                ? BroadcastCutByCompletion
                : null,
        });

    [Theory]
    [MemberData(nameof(CaseNames))]
    public void PostAndTryComplete_ConcurrentProducersFreeConsumers_ExactlyOnceInEachProducersOrder(string name)
        => Run(Cases.Single(c => c.Name == name), iter: 100, time: -1);

    [Theory]
    [MemberData(nameof(CaseNames))]
    [Trait("Category", "Stress")]
    public void PostAndTryComplete_ConcurrentProducersFreeConsumers_OneSecond_ExactlyOnceInEachProducersOrder(string name)
        => Run(Cases.Single(c => c.Name == name), iter: -1, time: 1);

    private static PipeOptions Sharing(PipeOptions options) => options with { Distribution = PipeDistribution.WorkSharing };

    private static void Run(ConcurrentProducersCase @case, long iter, int time)
    {
        var post = GenOperation.Create<ConcurrentProducersPipe, BoundedFifoModel, int>(
            Gen.Int[0, 99], v => $" Post({v})", (actual, v) => actual.Post(v), (model, v) => model.TryPost(v));
        var complete = GenOperation.Create<ConcurrentProducersPipe, BoundedFifoModel>(
            " TryComplete", actual => actual.TryComplete(), model => model.TryComplete());

        // Posts five times as likely as completion, so most runs have several producers posting before it.
        Gen.Int.Select(_ => (new ConcurrentProducersPipe(@case), new BoundedFifoModel(room: null)))
            .SampleParallel(
                [post, post, post, post, post, complete],
                equal: (actual, model) => actual.Matches(model),
                maxSequentialOperations: 3,
                maxParallelOperations: 8,
                iter: iter,
                time: time,
                threads: Producers,
                printActual: actual => actual.ToString(),
                printModel: model => model.ToString());
    }
}
