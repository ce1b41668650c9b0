
namespace Concurrency.Benchmarks.CrossProcess;

/// <summary>
/// One timed run: messages per second from the first send to the last reply, round-trip latency percentiles in
/// microseconds (NaN where a path has no per-message caller to time), and the bytes this process allocated per message
/// over the same span (NaN where not measured), and the CPU time the peer process (the server) used per message over
/// the run, in nanoseconds (NaN where the server is not a peer process of the lab's own: remote, in-process, NATS).
/// </summary>
internal readonly record struct PeerRunResult(double MessagesPerSecond, double P50, double P99, double P999, double BytesPerMessage = double.NaN, double ServerCpuNsPerMessage = double.NaN);
