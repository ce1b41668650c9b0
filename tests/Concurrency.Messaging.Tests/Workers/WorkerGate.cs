namespace Concurrency.Messaging.Tests.Workers;

/// <summary>
/// Holds every task that calls <see cref="Hold"/> until the test opens the gate, so the test knows how many workers are
/// busy at once. Disposing opens the gate, so a failed test never leaves a worker waiting.
/// </summary>
internal sealed class WorkerGate : IDisposable
{
    private readonly ManualResetEventSlim _open = new(false);
    private int _entered; // Interlocked: tasks that reached the gate

    /// <summary>Called by a task: counts itself in, then waits (bounded) for <see cref="Open"/>.</summary>
    public void Hold()
    {
        Interlocked.Increment(ref _entered);
        if (!_open.Wait(TestTimeouts.Default))
        {
            throw new TimeoutException("The test never opened the gate.");
        }
    }

    /// <summary>Waits (bounded) until <paramref name="count"/> tasks are held at the gate.</summary>
    public void WaitEntered(int count)
        => Assert.True(SpinWait.SpinUntil(() => Volatile.Read(ref _entered) >= count, TestTimeouts.Default), $"Only {Volatile.Read(ref _entered)} of {count} tasks reached the gate.");

    public void Open() => _open.Set();

    public void Dispose() => _open.Set();
}
