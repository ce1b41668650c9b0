namespace Concurrency.Messaging.Pipes;

/// <summary>
/// The room of a bounded pipe's lanes, counted apart from the lanes themselves so that a post can reserve a slot in every
/// lane before it writes to any: a post that is refused (full, cancelled or closed) has then delivered to nobody, and a post
/// that waits for room waits outside the pipe's gate, where it blocks no other post. Consumers free a slot as they take a
/// message.
/// </summary>
/// <remarks>
/// Producers reserve the lanes in one order, each reservation waiting only on its own lane's consumer, so reservations
/// cannot deadlock. Closing cancels every reservation still waiting; the caller turns that into <see cref="PipeClosedException"/>.
/// </remarks>
[System.Diagnostics.CodeAnalysis.SuppressMessage("Design", "CA1001", Justification = "A post after completion must get PipeClosedException, not ObjectDisposedException; nothing here holds a kernel handle unless asked for one.")]
internal sealed class LaneRoom
{
    private readonly SemaphoreSlim[] _free;                    // free slots per lane
    private readonly CancellationTokenSource _closed = new();  // cancelled once, by Close: wakes every waiting reservation

    public LaneRoom(int lanes, int capacity)
    {
        _free = new SemaphoreSlim[lanes];
        for (var i = 0; i < lanes; i++)
        {
            _free[i] = new SemaphoreSlim(capacity, capacity);
        }
    }

    public bool IsClosed => _closed.IsCancellationRequested;

    /// <summary>Reserves a slot in every lane, or in none.</summary>
    public bool TryReserve()
    {
        for (var i = 0; i < _free.Length; i++)
        {
            if (!_free[i].Wait(0))
            {
                Unreserve(i);
                return false;
            }
        }

        return true;
    }

    /// <summary>Reserves a slot in every lane, waiting for room.</summary>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled; nothing is reserved.</exception>
    /// <exception cref="PipeClosedException">The pipe closed while waiting; nothing is reserved.</exception>
    public void Reserve(CancellationToken cancellationToken)
    {
        using var wake = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken, _closed.Token);
        var reserved = 0;
        try
        {
            for (; reserved < _free.Length; reserved++)
            {
                _free[reserved].Wait(wake.Token);
            }
        }
        catch (OperationCanceledException)
        {
            Unreserve(reserved);
            throw Refusal(cancellationToken);
        }
    }

    /// <summary>Reserves a slot in every lane, waiting asynchronously for room.</summary>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled; nothing is reserved.</exception>
    /// <exception cref="PipeClosedException">The pipe closed while waiting; nothing is reserved.</exception>
    public async ValueTask ReserveAsync(CancellationToken cancellationToken)
    {
        using var wake = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken, _closed.Token);
        var reserved = 0;
        try
        {
            for (; reserved < _free.Length; reserved++)
            {
                await _free[reserved].WaitAsync(wake.Token).ConfigureAwait(false);
            }
        }
        catch (OperationCanceledException)
        {
            Unreserve(reserved);
            throw Refusal(cancellationToken);
        }
    }

    /// <summary>Gives back a whole reservation that was not used (the post found the pipe closed).</summary>
    public void Unreserve() => Unreserve(_free.Length);

    /// <summary>A consumer took a message from <paramref name="lane"/>: its slot is free again.</summary>
    public void Free(int lane) => _free[lane].Release();

    /// <summary>Wakes every waiting reservation, which then fails with <see cref="PipeClosedException"/>.</summary>
    public void Close() => _closed.Cancel();

    private static Exception Refusal(CancellationToken cancellationToken)
        => cancellationToken.IsCancellationRequested
            ? new OperationCanceledException(cancellationToken)
            : new PipeClosedException();

    private void Unreserve(int lanes)
    {
        for (var i = 0; i < lanes; i++)
        {
            _free[i].Release();
        }
    }
}
