using BenchmarkDotNet.Attributes;
using Concurrency.Benchmarks.HandOff.Paths;

namespace Concurrency.Benchmarks.HandOff;

/// <summary>
/// The seed's experiment, redone and widened: small preallocated messages from one producer thread to one consumer on
/// another, through every path, beside the two ceilings (a direct call, and a raw busy-spinning ring). Every bounded
/// contender gets the same capacity.
/// </summary>
public class HeadlineBenchmarks : PathBenchmark
{
    [ParamsSource(nameof(Paths))]
    public string Path { get; set; } = "Ring";

    /// <summary>The hand-off game's headline paths (<see cref="HandOffContenders"/>), a user's own among them.</summary>
    public static IEnumerable<string> Paths() => HandOffContenders.Paths;

    protected override string Scenario => $"Headline {Path}";

    [Benchmark(OperationsPerInvoke = DefaultMessageCount)]
    public void OneToOne() => Transfer();

    protected override IMessagePath CreatePath() => HandOffContenders.CreatePath(Path);
}
