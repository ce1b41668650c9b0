using Concurrency.Messaging.Logs;

namespace Concurrency.Benchmarks.Logs;

/// <summary>Our async wrapper: appends return at once; a thread's clock stops when its last append is durable.</summary>
public sealed class AsyncAppendLogRun(IAsyncAppendLog log) : ILogRun
{
    private readonly AppendLogRun _readBack = new(log);

    public Task? Append(ReadOnlySpan<byte> entry) => log.AppendAsync(entry.ToArray()).AsTask();

    public LogReadBack ReadBack(int every) => _readBack.ReadBack(every);

    public void Dispose() => log.Dispose();
}
