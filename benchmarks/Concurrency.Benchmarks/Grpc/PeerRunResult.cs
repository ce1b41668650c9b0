namespace Concurrency.Benchmarks.Grpc;

/// <summary>
/// One timed run: messages per second from the first send to the last reply, round-trip latency percentiles in
/// microseconds (NaN where a path has no per-message caller to time), and the bytes this process allocated per message
/// over the same span (NaN where not measured).
/// </summary>
internal readonly record struct PeerRunResult(double MessagesPerSecond, double P50, double P99, double P999, double BytesPerMessage = double.NaN);
