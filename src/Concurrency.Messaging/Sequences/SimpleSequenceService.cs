namespace Concurrency.Messaging.Sequences;

/// <summary>
/// The seed's simple server: one lock over the whole service. Each request is checked (cancellation, disposal), applied and
/// answered while the lock is held, so nothing about the service is ever seen half-changed.
/// </summary>
internal sealed class SimpleSequenceService : ISequenceService
{
    private readonly Lock _gate = new();
    private SequenceValue _sequence; // guarded by _gate
    private bool _disposed;          // guarded by _gate

    public ValueTask<long> NextAsync(CancellationToken cancellationToken = default)
    {
        lock (_gate)
        {
            if (cancellationToken.IsCancellationRequested)
            {
                return ValueTask.FromCanceled<long>(cancellationToken);
            }

            if (_disposed)
            {
                return ValueTask.FromException<long>(new ObjectDisposedException(nameof(ISequenceService)));
            }

            return _sequence.TryNext(out var identity)
                ? new ValueTask<long>(identity)
                : ValueTask.FromException<long>(SequenceValue.Exhausted());
        }
    }

    public ValueTask UpdateAsync(long value, CancellationToken cancellationToken = default)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(value);
        lock (_gate)
        {
            if (cancellationToken.IsCancellationRequested)
            {
                return ValueTask.FromCanceled(cancellationToken);
            }

            if (_disposed)
            {
                return ValueTask.FromException(new ObjectDisposedException(nameof(ISequenceService)));
            }

            _sequence.Raise(value);
            return default;
        }
    }

    public ValueTask DisposeAsync()
    {
        lock (_gate)
        {
            _disposed = true;
        }

        return default;
    }
}
