namespace Concurrency.Messaging.Grpc;

/// <summary>
/// A deadline for one wait at a time on a stream (a write of replies, a read of the next batch): armed before the wait,
/// disarmed after it; if it passes first, it cancels its target, which ends the wait. The stream's reader and its
/// writers each own one, so that no two threads arm the same deadline.
/// </summary>
internal sealed class PeerDeadline : IDisposable
{
    private readonly TimeSpan _timeout;

    // Fires on a timer thread; Change is called by the deadline's one owner.
    private readonly ITimer _timer;

    public PeerDeadline(TimeProvider clock, TimeSpan timeout, CancellationTokenSource target)
    {
        _timeout = timeout;
        _timer = clock.CreateTimer(static target => Cancel((CancellationTokenSource)target!), target, Timeout.InfiniteTimeSpan, Timeout.InfiniteTimeSpan);
    }

    /// <summary>Starts the time of a wait: past the timeout, the target is cancelled.</summary>
    public void Arm() => _timer.Change(_timeout, Timeout.InfiniteTimeSpan);

    /// <summary>The wait ended in time. One that ended just as the deadline passed may still see the target cancelled.</summary>
    public void Disarm() => _timer.Change(Timeout.InfiniteTimeSpan, Timeout.InfiniteTimeSpan);

    public void Dispose() => _timer.Dispose();

    // The timer thread. The target may be gone: a timer may fire once more after it was disposed.
    private static void Cancel(CancellationTokenSource target)
    {
        try
        {
            target.Cancel();
        }
        catch (ObjectDisposedException)
        {
            // The stream ended meanwhile.
        }
    }
}
