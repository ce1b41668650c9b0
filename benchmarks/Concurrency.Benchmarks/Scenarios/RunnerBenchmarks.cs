using BenchmarkDotNet.Attributes;
using Concurrency.Benchmarks.Harness;
using Concurrency.Benchmarks.Paths;
using Concurrency.Messaging.Pipes;

namespace Concurrency.Benchmarks.Scenarios;

/// <summary>
/// Every queue under both runners, 1 producer → 1 consumer: each pipe kind with its consumer on a dedicated thread and as
/// turns on the thread pool (the runner that costs nothing while idle), beside Dataflow's ActionBlock, which runs the
/// same way on the pool. A case reads "Ring dedicated" or "Ring pool"; "ObserveOn" is Rx's ObserveOn behind the pipe
/// interface (its long-running thread, or Rx's pool scheduling with that optimization off).
/// </summary>
public class RunnerBenchmarks : PathBenchmark
{
    private static readonly PipeKind[] Kinds =
    [
        PipeKind.BatchDrainQueue, PipeKind.Ring, PipeKind.ReaderWriterLockQueue, PipeKind.BlockingCollection, PipeKind.Channel, PipeKind.ObserveOn,
    ];

    [ParamsSource(nameof(Cases))]
    public string Case { get; set; } = "Ring pool";

    protected override string Scenario => $"Runner {Case}";

    public static IEnumerable<string> Cases()
    {
        foreach (var kind in Kinds)
        {
            yield return $"{kind} dedicated";
            yield return $"{kind} pool";
        }

        yield return "DataflowActionBlock";
    }

    [Benchmark(OperationsPerInvoke = DefaultMessageCount)]
    public void OneToOne() => Transfer();

    protected override IMessagePath CreatePath()
    {
        if (Case == "DataflowActionBlock")
        {
            return new ActionBlockPath();
        }

        var parts = Case.Split(' ');
        var kind = Enum.Parse<PipeKind>(parts[0]);
        var runner = parts[1] switch
        {
            "dedicated" => PipeRunner.DedicatedThread,
            "pool" => PipeRunner.ThreadPool,
            _ => throw new ArgumentOutOfRangeException(nameof(Case), Case, "Unknown runner."),
        };
        return new PipePath(kind, new PipeOptions
        {
            Runner = runner,
            Capacity = kind == PipeKind.Ring ? Capacities.Bounded : null,
        });
    }
}
