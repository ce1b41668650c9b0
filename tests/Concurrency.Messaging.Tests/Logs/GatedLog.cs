namespace Concurrency.Messaging.Tests.Logs;

/// <summary>An in-memory log whose batch appends wait at a gate the test opens, so a test can act while the writer is busy.</summary>
internal sealed class GatedLog : IAppendLog
{
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(30);

    private readonly IAppendLog _inner = AppendLog.InMemory();
    private readonly ManualResetEventSlim _entered = new();
    private readonly ManualResetEventSlim _open = new();

    public long Count => _inner.Count;

    /// <summary>Waits (bounded) until a batch append has reached the gate.</summary>
    public void WaitUntilEntered()
    {
        if (!_entered.Wait(Bound))
        {
            throw new TimeoutException("No batch append reached the gate.");
        }
    }

    public void Open() => _open.Set();

    public long Append(ReadOnlySpan<byte> entry) => _inner.Append(entry);

    public long AppendBatch(IReadOnlyList<ReadOnlyMemory<byte>> entries)
    {
        _entered.Set();
        if (!_open.Wait(Bound))
        {
            throw new TimeoutException("The test never opened the gate.");
        }

        return _inner.AppendBatch(entries);
    }

    public byte[] Get(long index) => _inner.Get(index);

    public void Flush() => _inner.Flush();

    public void Close() => _inner.Close();

    public void Dispose()
    {
        _inner.Dispose();
        _entered.Dispose();
        _open.Dispose();
    }
}
