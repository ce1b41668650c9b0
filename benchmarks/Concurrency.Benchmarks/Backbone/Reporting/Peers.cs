using Concurrency.Benchmarks.Actors;
using Concurrency.Benchmarks.HandOff;
using Concurrency.Benchmarks.Topologies;

namespace Concurrency.Benchmarks.Backbone.Reporting;

/// <summary>
/// Which peers each scenario's rows are measured against: the Rx and TPL Dataflow way of doing the same thing, measured in
/// the same run on the same job (and, where a scenario has other parameters, under the same ones).
/// </summary>
public static class Peers
{
    public const string Headline = nameof(HeadlineBenchmarks);

    public static readonly Peer RxObserveOn = new("Rx ObserveOn (TaskPool)", Headline, _ => "RxObserveOnTaskPool", SameConditions: false);

    public static readonly Peer DataflowActionBlock = new("Dataflow ActionBlock", Headline, _ => "DataflowActionBlock", SameConditions: false);

    public static IReadOnlyList<Peer> For(string scenario) => scenario switch
    {
        nameof(OrderedParallelBenchmarks) =>
        [
            new("Rx ObserveOn + Select", scenario, _ => "RxObserveOnThenSelect", SameConditions: true),
            new("Dataflow TransformBlock", scenario, _ => "DataflowTransformBlock", SameConditions: true),
        ],
        nameof(ConnectorBenchmarks) =>
        [
            new("Rx Subject", scenario, _ => "RxSubject", SameConditions: true),
            new("Rx Subject.Synchronize", scenario, _ => "RxSubjectSynchronized", SameConditions: true),
        ],
        nameof(TopologyBenchmarks) =>
        [
            // "Ring 1->2 broadcast" against "ObserveOn 1->2 broadcast": Rx's ObserveOn in the same shape, where it has one.
            new("Rx ObserveOn, same topology", scenario, r => Topology.Ending(r.Contender) is { } topology ? $"ObserveOn {topology}" : null, SameConditions: true),
        ],
        nameof(ActorPingPongBenchmarks) or nameof(ActorRingBenchmarks) =>
        [
            new("Akka.NET", scenario, _ => "AkkaNet", SameConditions: true),
            new("Proto.Actor", scenario, _ => "ProtoActor", SameConditions: true),
        ],
        nameof(SequenceServiceBenchmarks) =>
        [
            new("Simple (one lock)", scenario, _ => "Simple", SameConditions: true),
            new("Sequence (counter lock)", scenario, _ => "Sequence", SameConditions: true),
        ],
        nameof(RunnerBenchmarks) =>
        [
            new("Dataflow ActionBlock (pool)", scenario, _ => "DataflowActionBlock", SameConditions: true),
        ],
        nameof(CapacitySweepBenchmarks) =>
        [
            new("Channel, same capacity", scenario, _ => "Channel", SameConditions: true),
        ],
        _ => [RxObserveOn, DataflowActionBlock],
    };
}
