using Concurrency.Messaging.Logs;

namespace Concurrency.Benchmarks.Logs;

/// <summary>One of our logs (in memory, file, RocksDB) through its synchronous contract.</summary>
public sealed class AppendLogRun(IAppendLog log) : ILogRun
{
    public Task? Append(ReadOnlySpan<byte> entry)
    {
        log.Append(entry);
        return null;
    }

    public LogReadBack ReadBack(int every)
    {
        var count = log.Count;
        var sample = new List<byte[]>();
        for (long i = 0; i < count; i += every)
        {
            sample.Add(log.Get(i));
        }

        return new LogReadBack(count, sample);
    }

    public void Dispose() => log.Dispose();
}
