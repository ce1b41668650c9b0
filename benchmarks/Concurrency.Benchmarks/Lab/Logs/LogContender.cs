namespace Concurrency.Benchmarks.Lab.Logs;

/// <summary>
/// One log in the logs experiment: who it is (ours, a baseline or the peer), what an append that returned survives, and
/// how to open a fresh one in a directory of its own.
/// </summary>
public sealed record LogContender(string Name, string Role, string Durability, Func<string, ILogRun> Open);
