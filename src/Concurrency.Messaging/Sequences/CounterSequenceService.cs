namespace Concurrency.Messaging.Sequences;

/// <summary>
/// The seed's sequence server (the <see cref="SequenceServiceKind.Sequence"/> kind): a lock on the counter only. Each
/// request is checked and answered outside the lock, which is held just to move the counter.
/// </summary>
internal sealed class CounterSequenceService : ISequenceService
{
    private readonly Lock _gate = new();
    private SequenceValue _sequence;  // guarded by _gate
    private volatile bool _disposed;  // set once by DisposeAsync, read by every request without the lock

    public ValueTask<long> NextAsync(CancellationToken cancellationToken = default)
    {
        if (cancellationToken.IsCancellationRequested)
        {
            return ValueTask.FromCanceled<long>(cancellationToken);
        }

        if (_disposed)
        {
            return ValueTask.FromException<long>(new ObjectDisposedException(nameof(ISequenceService)));
        }

        bool issued;
        long identity;
        lock (_gate)
        {
            issued = _sequence.TryNext(out identity);
        }

        return issued ? new ValueTask<long>(identity) : ValueTask.FromException<long>(SequenceValue.Exhausted());
    }

    public ValueTask UpdateAsync(long value, CancellationToken cancellationToken = default)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(value);
        if (cancellationToken.IsCancellationRequested)
        {
            return ValueTask.FromCanceled(cancellationToken);
        }

        if (_disposed)
        {
            return ValueTask.FromException(new ObjectDisposedException(nameof(ISequenceService)));
        }

        lock (_gate)
        {
            _sequence.Raise(value);
        }

        return default;
    }

    public ValueTask DisposeAsync()
    {
        _disposed = true;
        return default;
    }
}
