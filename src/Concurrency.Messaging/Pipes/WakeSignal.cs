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

    public void Wait(CancellationToken cancellationToken)
    {
        _semaphore.Wait(cancellationToken);
        Volatile.Write(ref _pending, 0);
    }

    public async ValueTask WaitAsync(CancellationToken cancellationToken)
    {
        await _semaphore.WaitAsync(cancellationToken).ConfigureAwait(false);
        Volatile.Write(ref _pending, 0);
    }

    public void Dispose() => _semaphore.Dispose();
}
