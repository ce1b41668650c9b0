namespace Concurrency.Messaging.Tests.Workers;

/// <summary>A fake timer that says whether it was disposed.</summary>
internal sealed class RecordedTimer(ITimer inner) : ITimer
{
    private int _disposed; // Interlocked

    public bool IsDisposed => Volatile.Read(ref _disposed) == 1;

    public bool Change(TimeSpan dueTime, TimeSpan period) => inner.Change(dueTime, period);

    public void Dispose()
    {
        Interlocked.Exchange(ref _disposed, 1);
        inner.Dispose();
    }

    public ValueTask DisposeAsync()
    {
        Dispose();
        return ValueTask.CompletedTask;
    }
}
