using BenchmarkDotNet.Attributes;
using Concurrency.Benchmarks.Harness;
using Concurrency.Benchmarks.Paths;
using Concurrency.Messaging.Pipes;

namespace Concurrency.Benchmarks.Scenarios;

/// <summary>
/// N producers → 1 consumer, 1 → N broadcast and 1 → N work-sharing, N = 2 and 4, for every pipe that supports the
/// topology. A case reads "Channel 4->1", "Ring 1->2 broadcast", "BatchDrainQueue 1->4 work-sharing". With N producers the
/// consumer checks each producer's order; with work-sharing only the sum can be checked.
/// </summary>
public class TopologyBenchmarks : PathBenchmark
{
    private static readonly Dictionary<string, (PipeKind Kind, int? Capacity)> Kinds = new()
    {
        ["ObserveOn"] = (PipeKind.ObserveOn, null),
        ["ReaderWriterLockQueue"] = (PipeKind.ReaderWriterLockQueue, null),
        ["BatchDrainQueue"] = (PipeKind.BatchDrainQueue, null),
        ["Channel"] = (PipeKind.Channel, null),
        ["ChannelBounded"] = (PipeKind.Channel, Capacities.Bounded),
        ["Ring"] = (PipeKind.Ring, Capacities.Bounded),
        ["BlockingCollection"] = (PipeKind.BlockingCollection, null),
    };

    [ParamsSource(nameof(Cases))]
    public string Case { get; set; } = "Channel 2->1";

    protected override string Scenario => $"Topology {Case}";

    public static IEnumerable<string> Cases()
    {
        foreach (var (name, (kind, _)) in Kinds)
        {
            foreach (var n in new[] { 2, 4 })
            {
                if (kind != PipeKind.Ring)
                {
                    yield return $"{name} {n}->1";
                }

                yield return $"{name} 1->{n} broadcast";
                if (kind is not PipeKind.ObserveOn)
                {
                    yield return $"{name} 1->{n} work-sharing";
                }
            }
        }
    }

    [Benchmark(OperationsPerInvoke = DefaultMessageCount)]
    public void Topology() => Transfer();

    protected override IMessagePath CreatePath()
    {
        var parts = Case.Split(' ');
        var (kind, capacity) = Kinds[parts[0]];
        var ends = parts[1].Split("->");
        var producers = int.Parse(ends[0], System.Globalization.CultureInfo.InvariantCulture);
        var consumers = int.Parse(ends[1], System.Globalization.CultureInfo.InvariantCulture);
        var distribution = parts.Length > 2 && parts[2] == "work-sharing" ? PipeDistribution.WorkSharing : PipeDistribution.Broadcast;
        return new PipePath(kind, new PipeOptions { Producers = producers, Capacity = capacity, Distribution = distribution }, consumers);
    }
}
