namespace Concurrency.Messaging.Tests.Logs;

/// <summary>A log in memory whose batch appends throw an <see cref="IOException"/> once <see cref="Fail"/> was called: a disk gone bad.</summary>
internal sealed class FailingLog : IAppendLog
{
    private readonly IAppendLog _inner = AppendLog.InMemory();

    // Set by the test thread, read by the async log's writer.
    private volatile bool _failing;

    public long Count => _inner.Count;

    public void Fail() => _failing = true;

    public long Append(ReadOnlySpan<byte> entry) => _inner.Append(entry);

    public long AppendBatch(IReadOnlyList<ReadOnlyMemory<byte>> entries)
        => _failing ? throw new IOException("disk gone") : _inner.AppendBatch(entries);

    public byte[] Get(long index) => _inner.Get(index);

    public void Flush() => _inner.Flush();

    public void Close() => _inner.Close();

    public void Dispose() => _inner.Dispose();
}
