namespace Concurrency.Messaging.Pipes;

/// <summary>
/// An auto-reset wake-up for exactly one waiter, with sync and async waits. Setting it twice before the waiter runs
/// wakes it once: the waiter re-checks its condition after every wake, so a coalesced set loses nothing.
/// </summary>
internal sealed class WakeSignal : IDisposable
{
    private readonly SemaphoreSlim _semaphore = new(0, 1);
    private int _pending; // 1 while a release is outstanding (Interlocked), so the semaphore never exceeds its maximum

    public void Set()
    {
        if (Interlocked.Exchange(ref _pending, 1) == 0)
        {
            _semaphore.Release();
        }
    }

    /// <summary>Waits for a set, or for <paramref name="timeout"/>: the caller re-checks its condition either way.</summary>
    public void Wait(TimeSpan timeout, CancellationToken cancellationToken)
    {
        if (_semaphore.Wait(timeout, cancellationToken))
        {
            Volatile.Write(ref _pending, 0);
        }
    }

    /// <summary>Waits for a set, or for <paramref name="timeout"/>: the caller re-checks its condition either way.</summary>
    public async ValueTask WaitAsync(TimeSpan timeout, CancellationToken cancellationToken)
    {
        if (await _semaphore.WaitAsync(timeout, cancellationToken).ConfigureAwait(false))
        {
            Volatile.Write(ref _pending, 0);
        }
    }

    public void Dispose() => _semaphore.Dispose();
}
