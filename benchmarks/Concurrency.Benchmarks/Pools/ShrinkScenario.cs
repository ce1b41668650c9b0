
namespace Concurrency.Benchmarks.Pools;

/// <summary>
/// The shrink scenario: grow to <paramref name="Workers"/> workers at 0 s, then <paramref name="TasksPerSecond"/> short tasks
/// every fake second for <paramref name="TrickleSeconds"/> seconds, then <paramref name="QuietSeconds"/> seconds with none.
/// </summary>
public sealed record ShrinkScenario(int Workers, int TrickleSeconds, int TasksPerSecond, int QuietSeconds);
