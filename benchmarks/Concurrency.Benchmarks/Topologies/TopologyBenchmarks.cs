using BenchmarkDotNet.Attributes;
using Concurrency.Benchmarks.HandOff;
using Concurrency.Benchmarks.HandOff.Paths;
using Concurrency.Messaging.Pipes;

namespace Concurrency.Benchmarks.Topologies;

/// <summary>
/// N producers → 1 consumer, 1 → N broadcast and 1 → N work-sharing, N = 2 and 4, for every pipe that supports the
/// topology (<see cref="TopologyContenders"/>). A case reads "Channel 4->1", "Ring 1->2 broadcast", "BatchDrainQueue 1->4
/// work-sharing". With N producers the consumer checks each producer's order; with work-sharing only the sum can be checked.
/// </summary>
public class TopologyBenchmarks : PathBenchmark
{
    [ParamsSource(nameof(Cases))]
    public TopologyCase Case { get; set; } = TopologyContenders.Cases.First();

    protected override string Scenario => $"Topology {Case}";

    public static IEnumerable<TopologyCase> Cases() => TopologyContenders.Cases;

    [Benchmark(OperationsPerInvoke = DefaultMessageCount)]
    public void Topology() => Transfer();

    protected override IMessagePath CreatePath()
    {
        var (pipe, topology) = (Case.Pipe.Build, Case.Topology);
        var options = new PipeOptions { Producers = topology.Producers, Capacity = pipe.Capacity, Distribution = topology.Distribution };
        return new PipePath(pipe.Kind, options, topology.Consumers);
    }
}
