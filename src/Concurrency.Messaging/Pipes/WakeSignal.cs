namespace Concurrency.Messaging.Pipes;

/// <summary>
/// An auto-reset wake-up for exactly one waiter. Setting it twice before the waiter runs wakes it once, and a set with
/// nobody waiting makes the next wait return at once: the waiter re-checks its condition after every wake, so a
/// coalesced or early set loses nothing and costs at most one extra look.
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

    /// <summary>Waits for a set.</summary>
    /// <returns><see langword="false"/> if <paramref name="timeout"/> passed first.</returns>
    public bool Wait(TimeSpan timeout)
    {
        if (!_semaphore.Wait(timeout))
        {
            return false;
        }

        Volatile.Write(ref _pending, 0);
        return true;
    }

    public void Dispose() => _semaphore.Dispose();
}
