
namespace Concurrency.Benchmarks.Actors;

/// <summary>What one actor benchmark run delivered, for verification against what it should have.</summary>
/// <param name="Delivered">Messages (or hops) counted at the receiving actors.</param>
/// <param name="Checksum">The sum of the sequence or token numbers that came back.</param>
internal readonly record struct RunTotals(long Delivered, long Checksum);
