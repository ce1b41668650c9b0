using BenchmarkDotNet.Attributes;
using Concurrency.Benchmarks.HandOff.Paths;
using Concurrency.Benchmarks.Topologies;

namespace Concurrency.Benchmarks.HandOff;

/// <summary>
/// Subject-as-connector overhead: one OnNext delivered to 1, 4 and 16 subscribers with no thread hop, through our connector
/// and beside it Rx's Subject and Subject.Synchronize, so the difference reads as the price of the connector's isolation.
/// </summary>
public class ConnectorBenchmarks : PathBenchmark
{
    [ParamsAllValues]
    public FanoutPath Path { get; set; }

    [Params(1, 4, 16)]
    public int Subscribers { get; set; } = 1;

    protected override string Scenario => $"Fan-out {Path} to {Subscribers}";

    [Benchmark(OperationsPerInvoke = DefaultMessageCount)]
    public void Fanout() => Transfer();

    protected override IMessagePath CreatePath() => Path switch
    {
        FanoutPath.Connector => new ConnectorPath(Subscribers),
        FanoutPath.RxSubject => new SubjectPath(Subscribers, synchronize: false),
        FanoutPath.RxSubjectSynchronized => new SubjectPath(Subscribers, synchronize: true),
        _ => throw new ArgumentOutOfRangeException(nameof(Path), Path, "Unknown fan-out path."),
    };
}
