using Concurrency.Messaging.Pipes;
using CsCheck;
using Xunit;

namespace Concurrency.Messaging.Tests.Linearizability;

/// <summary>
/// Real parallel calls of the synchronous operations (TryPost, TryComplete), checked by CsCheck against every sequential
/// order of a simple FIFO model: some order must explain each call's result and the consumer's handled sequence.
/// The ring is left out: it promises one producer, and parallel posts would break that promise, not test it.
/// </summary>
public sealed class PipeLinearizabilityTests
{
    public static TheoryData<string> Pipes() => [.. PipeUnderTest.Configurations.Keys];

    [Theory]
    [MemberData(nameof(Pipes))]
    public void TryPostAndTryComplete_ParallelCalls_Linearizable(string pipe)
    {
        var (kind, options) = PipeUnderTest.Configurations[pipe];
        Check.SampleParallel(
            Gen.Int.Select(_ => (new PipeUnderTest(kind, options), new FifoModel())),
            GenOperation.Create<PipeUnderTest, FifoModel, int>(
                Gen.Int[0, 999], v => $"TryPost({v})", (actual, v) => actual.TryPost(v), (model, v) => model.TryPost(v)),
            GenOperation.Create<PipeUnderTest, FifoModel>("TryComplete", actual => actual.TryComplete(), model => model.TryComplete()),
            equal: (actual, model) => actual.Matches(model),
            iter: 150,
            threads: 2,
            printActual: actual => actual.ToString(),
            printModel: model => model.ToString());
    }
}
