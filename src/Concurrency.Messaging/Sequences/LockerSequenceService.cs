namespace Concurrency.Messaging.Sequences;

/// <summary>
/// The seed's locker server: the actor's event handling without its mailbox. Each request becomes an event that is
/// dispatched through a mutex, an async one (a <see cref="SemaphoreSlim"/> of one), and handled by the caller while it
/// holds the mutex, so events are handled one at a time as in the actor, on the callers' threads. Uncontended, the mutex
/// is entered synchronously and a request completes without allocating; a caller that finds it held waits asynchronously.
/// </summary>
internal sealed class LockerSequenceService : ISequenceService
{
    // The events' mutex. Never disposed: a SemaphoreSlim holds no kernel handle unless its AvailableWaitHandle is read,
    // and disposing it under a caller still waiting would strand that caller.
    private readonly SemaphoreSlim _mutex = new(1, 1);
    private SequenceValue _sequence; // guarded by _mutex
    private bool _disposed;          // guarded by _mutex

    public ValueTask<long> NextAsync(CancellationToken cancellationToken = default) =>
        DispatchAsync(SequenceEvent.Next, cancellationToken);

    public ValueTask UpdateAsync(long value, CancellationToken cancellationToken = default)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(value);
        var handled = DispatchAsync(SequenceEvent.Update(value), cancellationToken);
        if (handled.IsCompletedSuccessfully)
        {
            _ = handled.Result;
            return default;
        }

        return AcknowledgedAsync(handled);
    }

    public async ValueTask DisposeAsync()
    {
        await _mutex.WaitAsync().ConfigureAwait(false);
        try
        {
            _disposed = true;
        }
        finally
        {
            _mutex.Release();
        }
    }

    private static async ValueTask AcknowledgedAsync(ValueTask<long> handled) => await handled.ConfigureAwait(false);

    /// <summary>Enters the mutex, handles the event under it, and replies.</summary>
    private ValueTask<long> DispatchAsync(SequenceEvent request, CancellationToken cancellationToken)
    {
        var entered = _mutex.WaitAsync(cancellationToken);
        return entered.IsCompletedSuccessfully ? HandleAndExit(request) : DispatchWhenEnteredAsync(entered, request);
    }

    private async ValueTask<long> DispatchWhenEnteredAsync(Task entered, SequenceEvent request)
    {
        await entered.ConfigureAwait(false);
        return await HandleAndExit(request).ConfigureAwait(false);
    }

    /// <summary>Handles one event; the caller holds the mutex, which this releases.</summary>
    private ValueTask<long> HandleAndExit(SequenceEvent request)
    {
        try
        {
            if (_disposed)
            {
                return ValueTask.FromException<long>(new ObjectDisposedException(nameof(ISequenceService)));
            }

            return _sequence.TryHandle(request, out var reply)
                ? new ValueTask<long>(reply)
                : ValueTask.FromException<long>(SequenceValue.Exhausted());
        }
        finally
        {
            _mutex.Release();
        }
    }
}
