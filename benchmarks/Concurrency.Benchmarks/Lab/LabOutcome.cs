namespace Concurrency.Benchmarks.Lab;

/// <summary>What an experiment produced: tables (rows of formatted cells) and charts (numeric series).</summary>
public sealed record LabOutcome(IReadOnlyList<LabTable> Tables, IReadOnlyList<LabChart> Charts);
