namespace Concurrency.Benchmarks.HandOff;

/// <summary>
/// One speed goal's ratio measured head to head in one launch: the ratio taken within each round of back-to-back runs,
/// every round kept. The goal itself (<see cref="Contenders.Goal"/>) judges the launches' rounds.
/// </summary>
public sealed record LoopRatio(string Name, IReadOnlyList<double> Rounds);
