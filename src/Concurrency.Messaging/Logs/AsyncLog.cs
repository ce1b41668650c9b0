using System.Threading.Channels;

namespace Concurrency.Messaging.Logs;

/// <summary>
/// The asynchronous wrapper (<see cref="IAsyncAppendLog"/>): callers queue requests on an unbounded channel and return; one
/// writer loop takes whatever is queued (up to <see cref="MaxBatch"/> entries), hands it to the inner log as one
/// <see cref="IAppendLog.AppendBatch"/> (so the inner policy's flush step runs once per batch), then completes the requests.
/// </summary>
internal sealed class AsyncLog : IAsyncAppendLog
{
    private const int MaxBatch = 4096;

    private readonly IAppendLog _inner;

    // Many writers (callers), one reader (the writer loop). Completed by Close, or by the loop when the inner log fails.
    private readonly Channel<PendingAppend> _queue = Channel.CreateUnbounded<PendingAppend>(
        new UnboundedChannelOptions { SingleReader = true, SingleWriter = false });

    private readonly Task _writer;

    // The inner log's error. Written once by the writer loop before it completes the channel; read by callers (Volatile).
    private Exception? _fault;

    // 0 until the first Close; set with Interlocked so that only one caller closes the inner log.
    private int _closing;

    public AsyncLog(IAppendLog inner)
    {
        _inner = inner;
        _writer = Task.Run(WriteLoopAsync);
    }

    public long Count => _inner.Count;

    public ValueTask<long> AppendAsync(ReadOnlyMemory<byte> entry, CancellationToken cancellationToken = default)
    {
        if (cancellationToken.IsCancellationRequested)
        {
            return ValueTask.FromCanceled<long>(cancellationToken);
        }

        var pending = PendingAppend.One(entry.ToArray()).WatchedBy(cancellationToken);
        try
        {
            Enqueue(pending);
        }
        catch
        {
            pending.Release();
            throw;
        }

        return new ValueTask<long>(pending.Completion.Task);
    }

    /// <summary>
    /// Queues the entry and blocks the calling thread until the writer has applied it and it is as durable as the inner log's
    /// policy makes it (under Fsync, an fsync). Never call it from a pool thread, an actor's turn or a pipe's handler: it holds
    /// that thread for the wait; use <see cref="AppendAsync"/> there.
    /// </summary>
    public long Append(ReadOnlySpan<byte> entry)
        => Enqueue(PendingAppend.One(entry.ToArray())).Completion.Task.GetAwaiter().GetResult();

    public long AppendBatch(IReadOnlyList<ReadOnlyMemory<byte>> entries)
    {
        ArgumentNullException.ThrowIfNull(entries);
        var copies = new ReadOnlyMemory<byte>[entries.Count];
        for (var i = 0; i < copies.Length; i++)
        {
            copies[i] = entries[i].ToArray();
        }

        return Enqueue(PendingAppend.Many(copies)).Completion.Task.GetAwaiter().GetResult();
    }

    public byte[] Get(long index) => _inner.Get(index);

    /// <summary>Waits until everything queued before the call is applied, then flushes the inner log.</summary>
    public void Flush()
    {
        AppendBatch([]);
        _inner.Flush();
    }

    public async ValueTask DisposeAsync()
    {
        _queue.Writer.TryComplete();
        await _writer.ConfigureAwait(false);
        if (Interlocked.Exchange(ref _closing, 1) == 0)
        {
            _inner.Close();
        }
    }

    public void Close() => DisposeAsync().AsTask().GetAwaiter().GetResult();

    public void Dispose() => Close();

    private PendingAppend Enqueue(PendingAppend pending)
    {
        if (!_queue.Writer.TryWrite(pending))
        {
            var fault = Volatile.Read(ref _fault);
            if (fault is not null)
            {
                throw new InvalidOperationException("The inner log failed; this log takes no more appends.", fault);
            }

            throw new ObjectDisposedException(nameof(IAsyncAppendLog));
        }

        return pending;
    }

    private async Task WriteLoopAsync()
    {
        var reader = _queue.Reader;
        var batch = new List<PendingAppend>();
        var entries = new List<ReadOnlyMemory<byte>>();
        while (await reader.WaitToReadAsync().ConfigureAwait(false))
        {
            while (entries.Count < MaxBatch && reader.TryRead(out var pending))
            {
                batch.Add(pending);
                pending.AddTo(entries);
            }

            long first;
            try
            {
                first = _inner.AppendBatch(entries);
            }
            catch (Exception error)
            {
                Fail(batch, error);
                return;
            }

            foreach (var pending in batch)
            {
                pending.Succeed(first);
                first += pending.EntryCount;
            }

            batch.Clear();
            entries.Clear();
        }
    }

    // Fails the batch, stops taking appends and fails whatever was queued before the stop: no request is left pending.
    private void Fail(List<PendingAppend> batch, Exception error)
    {
        Volatile.Write(ref _fault, error);
        _queue.Writer.TryComplete();
        foreach (var pending in batch)
        {
            pending.Fail(error);
        }

        while (_queue.Reader.TryRead(out var pending))
        {
            pending.Fail(error);
        }
    }
}
