using Concurrency.Benchmarks.Backbone.Reporting;

namespace Concurrency.Benchmarks.Tests;

/// <summary>Chart colours come from the contender's name, whatever parameter the table label starts with.</summary>
public sealed class FamiliesTests
{
    [Theory]
    [InlineData("DirectCall", ContenderFamily.Ceiling)]
    [InlineData("RawRing", ContenderFamily.Ceiling)]
    [InlineData("RxObserveOnThenSelect", ContenderFamily.Rx)]
    [InlineData("RxSubjectSynchronized", ContenderFamily.Rx)]
    [InlineData("ObserveOn 2->1", ContenderFamily.Rx)]
    [InlineData("DataflowTransformBlock", ContenderFamily.Dataflow)]
    [InlineData("ObserveOnParallel", ContenderFamily.Ours)]
    [InlineData("ObserveOnRing", ContenderFamily.Ours)]
    [InlineData("Ring 1->2 broadcast", ContenderFamily.Ours)]
    [InlineData("Connector", ContenderFamily.Ours)]
    [InlineData("AkkaNet", ContenderFamily.ActorSystem)]
    [InlineData("ProtoActor", ContenderFamily.ActorSystem)]
    [InlineData("BatchDrainMailbox", ContenderFamily.Ours)]
    [InlineData("ObserveOn pool", ContenderFamily.Rx)]
    [InlineData("DataflowActionBlock", ContenderFamily.Dataflow)]
    [InlineData("RingPoolRunner", ContenderFamily.Ours)]
    public void Of_ContenderName_Family(string contender, ContenderFamily expected) => Assert.Equal(expected, Families.Of(contender));

    [Fact]
    public void ParseParameters_OrderedParallelCase_ContenderIsThePathWhateverComesFirst()
    {
        var parameters = BenchmarkResult.ParseParameters("Ns.OrderedParallelBenchmarks.Select(SelectorMicroseconds: 1, Path: RxObserveOnThenSelect)");

        Assert.Equal([("SelectorMicroseconds", "1"), ("Path", "RxObserveOnThenSelect")], parameters);
    }

    [Fact]
    public void ParseParameters_AnUnquotedValueWithACommaInIt_RunsToTheNextParameter()
    {
        var parameters = BenchmarkResult.ParseParameters("Ns.ActorRingBenchmarks.Ring(Contender: AkkaNet, Game: ring N=1,000 M=1,000, all tokens at once, Extra: 2)");

        Assert.Equal([("Contender", "AkkaNet"), ("Game", "ring N=1,000 M=1,000, all tokens at once"), ("Extra", "2")], parameters);
    }

    [Fact]
    public void ParseParameters_QuotedString_KeepsItWhole()
    {
        var parameters = BenchmarkResult.ParseParameters("Ns.TopologyBenchmarks.Topology(Case: \"BatchDrainQueue 1->4 work-sharing\")");

        Assert.Equal([("Case", "BatchDrainQueue 1->4 work-sharing")], parameters);
    }
}
