
namespace Concurrency.Benchmarks.Logs;

/// <summary>What a log gave back after a run: its count and a sample of its entries in log order.</summary>
public sealed record LogReadBack(long Count, IReadOnlyList<byte[]> Sample);
