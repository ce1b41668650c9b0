using Concurrency.Benchmarks.Actors;
using Concurrency.Benchmarks.Backbone.Reporting;
using Concurrency.Benchmarks.HandOff;
using Concurrency.Benchmarks.HandOff.Shapes;
using Concurrency.Benchmarks.Pools.Admission;
using Concurrency.Benchmarks.Topologies;
using Concurrency.Messaging.Pipes;

namespace Concurrency.Benchmarks.Tests;

public class ContenderRegistryTests
{
    [Fact]
    public void HandOff_TheSampleInItsOwnFile_IsFoundAndJoinsTheHeadlineAndTheLoop()
    {
        var sample = HandOffContenders.Registry["SampleLockedQueue"];

        Assert.Equal(ContenderFamily.User, sample.Family);
        Assert.Contains("SampleLockedQueue", HeadlineBenchmarks.Paths());
        Assert.Equal(ContenderFamily.User, Families.Of("SampleLockedQueue"));
        Assert.Equal("SampleLockedQueue", HandOffContenders.Registry.All[^1].Name); // after every built-in contender
    }

    [Fact]
    public Task HandOff_TheSample_RunsAsAHeadlineBenchmarkAndVerifiesEveryBlock()
        => BenchmarkCase.All().Single(c => c.Type == typeof(HeadlineBenchmarks) && c.Parameters.Any(p => Equals(p.Value, "SampleLockedQueue"))).AssertVerifiedAsync();

    [Fact]
    public void HandOff_EveryHeadlinePathIsAContender_AndTheIdleOnesBuildNoPath()
    {
        Assert.Equal(
            HandOffContenders.Registry.All.Where(c => c.Build.Path is not null).Select(c => c.Name),
            HeadlineBenchmarks.Paths());
        var idleOnly = HandOffContenders.Registry["Ring, pool runner"];
        Assert.Null(idleOnly.Build.Path);
        var refused = Assert.Throws<ArgumentException>(() => HandOffContenders.CreatePath("Ring, pool runner"));
        Assert.Contains("idle only", refused.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Topologies_EveryPipeInTheTopologiesItSupports_UnderTheNamesTheResultsUse()
    {
        var names = TopologyContenders.Cases.Select(c => c.ToString()).ToList();

        // Seven pipes in six topologies, less the ring's N → 1 (one producer) and ObserveOn's work-sharing (it broadcasts).
        Assert.Equal(7 * 6 - 2 - 2, names.Count);
        Assert.Equal("ObserveOn 2->1", names[0]);
        Assert.Contains("Ring 1->4 work-sharing", names);
        Assert.Contains("ChannelBounded 4->1", names);
        Assert.DoesNotContain("Ring 2->1", names);
        Assert.DoesNotContain("ObserveOn 1->2 work-sharing", names);
        Assert.All(TopologyContenders.Cases, c => Assert.Equal(c, TopologyContenders.Find(c.ToString())));
        Assert.Equal(new Topology(1, 4, PipeDistribution.WorkSharing), Topology.Ending("BatchDrainQueue 1->4 work-sharing"));
    }

    [Fact]
    public void Runners_EachPipeUnderBothRunnersThenActionBlock_UnderTheNamesTheResultsUse()
    {
        var names = RunnerContenders.Registry.Names.ToList();

        Assert.Equal(["BatchDrainQueue dedicated", "BatchDrainQueue pool", "Ring dedicated", "Ring pool"], names.Take(4));
        Assert.Equal("DataflowActionBlock", names[^1]);
        Assert.Equal(13, names.Count);
        Assert.Equal(ContenderFamily.Rx, RunnerContenders.Registry["ObserveOn dedicated"].Family);
    }

    [Fact]
    public void Shapes_EveryShapePathHasItsContender_InTheEnumsOrder()
        => Assert.Equal(Enum.GetNames<ShapePath>(), ShapeContenders.Registry.Names);

    [Fact]
    public void CapacityAndAdmission_TheirContenders_UnderTheNamesTheResultsUse()
    {
        Assert.Equal(["Ring", "Channel", "BlockingCollection", "ObserveOnRing", "ObserveOnChannel", "RingBroadcast3"], CapacitySweepBenchmarks.Kinds());
        Assert.Equal(["none", "reject", "throttle"], AdmissionSetup.Registry.Names);
    }

    [Fact]
    public void Indexer_UnknownName_SaysWhichGameAndListsItsContenders()
    {
        var refused = Assert.Throws<ArgumentException>(() => ActorContenders.Registry["Orleans"]);

        Assert.Contains("actors game has no contender 'Orleans'", refused.Message, StringComparison.Ordinal);
        Assert.Contains("BatchDrainMailbox, ChannelMailbox, BoundedBatchDrainMailbox, AsyncReceive, AsyncReceiveYielding, AkkaNet, ProtoActor", refused.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Constructor_TwoContendersOfOneName_IsRefused()
    {
        Contender<int>[] twins = [new("a", ContenderFamily.Ours, 1), new("a", ContenderFamily.Peer, 2)];

        var refused = Assert.Throws<ArgumentException>(() => new ContenderRegistry<int>("twins", twins, discover: false));

        Assert.Contains("two contenders named 'a'", refused.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Contender_PeerAndOurs_FollowTheFamily()
    {
        Assert.True(new Contender<int>("x", ContenderFamily.Dataflow, 0).IsPeer);
        Assert.True(new Contender<int>("x", ContenderFamily.Ours, 0).IsOurs);
        Assert.False(new Contender<int>("x", ContenderFamily.Baseline, 0).IsPeer);
        Assert.False(new Contender<int>("x", ContenderFamily.User, 0).IsOurs);
    }
}
