namespace Concurrency.Benchmarks.Grpc;

/// <summary>One timed run: messages per second from the first send to the last reply, and round-trip latency percentiles in microseconds (NaN where a path has no per-message caller to time).</summary>
internal readonly record struct PeerRunResult(double MessagesPerSecond, double P50, double P99, double P999);
