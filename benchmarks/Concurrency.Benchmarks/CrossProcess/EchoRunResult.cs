
namespace Concurrency.Benchmarks.CrossProcess;

/// <summary>One timed run of a peer's client: the replies that came back, how long from the first send to the last reply, and the sum of the numbers the replies carried.</summary>
internal readonly record struct EchoRunResult(long Messages, TimeSpan Elapsed, long Checksum);
