namespace Concurrency.Benchmarks.HandOff;

/// <summary>What one launch of the plain loop measured: every path on its own, then the goal ratios head to head.</summary>
public sealed record LoopLaunch(IReadOnlyList<LoopResult> Paths, IReadOnlyList<LoopRatio> HeadToHead);
