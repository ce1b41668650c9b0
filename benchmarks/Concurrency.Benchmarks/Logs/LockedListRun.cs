
namespace Concurrency.Benchmarks.Logs;

/// <summary>The baseline in memory: a plain List of copies under a ReaderWriterLockSlim, appends write-locked (the seed's InMemoryLog).</summary>
public sealed class LockedListRun : ILogRun
{
    private readonly ReaderWriterLockSlim _lock = new();

    // Guarded by _lock.
    private readonly List<byte[]> _entries = [];

    public Task? Append(ReadOnlySpan<byte> entry)
    {
        var copy = entry.ToArray();
        _lock.EnterWriteLock();
        try
        {
            _entries.Add(copy);
        }
        finally
        {
            _lock.ExitWriteLock();
        }

        return null;
    }

    public LogReadBack ReadBack(int every)
    {
        _lock.EnterReadLock();
        try
        {
            return new LogReadBack(_entries.Count, [.. _entries.Where((_, i) => i % every == 0)]);
        }
        finally
        {
            _lock.ExitReadLock();
        }
    }

    public void Dispose() => _lock.Dispose();
}
