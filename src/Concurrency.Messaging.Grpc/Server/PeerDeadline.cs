namespace Concurrency.Messaging.Grpc;

/// <summary>
/// A deadline for one wait at a time on a stream (a write of replies, a read of the next batch): armed before the wait,
/// disarmed after it; if it passes first, it cancels its target, which ends the wait. <see cref="Touch"/> moves it later
/// without a new wait (the reader's deadline, when the stream sends a reply: a client taking replies is not idle). The
/// stream's reader and its writer each own one, so that no two threads arm the same deadline.
/// </summary>
internal sealed class PeerDeadline : IDisposable
{
    private readonly TimeProvider _clock;
    private readonly TimeSpan _timeout;
    private readonly CancellationTokenSource _target;

    // Fires on a timer thread; Arm and Disarm are called by the deadline's one owner.
    private readonly ITimer _timer;

    // 1 while a wait is under way: written by the owner, read by the timer, which ignores a firing that outlived its wait.
    private int _armed;

    // 1 once the deadline passed and cancelled its target: written by the timer, read by the owner after its wait ended.
    private int _passed;

    // When the deadline was last started or touched (the clock's timestamp): written by the owner and by Touch, read by the timer.
    private long _since;

    public PeerDeadline(TimeProvider clock, TimeSpan timeout, CancellationTokenSource target)
    {
        _clock = clock;
        _timeout = timeout;
        _target = target;
        _timer = clock.CreateTimer(static deadline => ((PeerDeadline)deadline!).Passed(), this, Timeout.InfiniteTimeSpan, Timeout.InfiniteTimeSpan);
    }

    /// <summary>Starts the time of a wait: past the timeout, the target is cancelled.</summary>
    public void Arm()
    {
        Volatile.Write(ref _since, _clock.GetTimestamp());
        Volatile.Write(ref _armed, 1);
        _timer.Change(_timeout, Timeout.InfiniteTimeSpan);
    }

    /// <summary>The wait ended in time. One that ended just as the deadline passed may still see the target cancelled.</summary>
    public void Disarm()
    {
        Volatile.Write(ref _armed, 0);
        _timer.Change(Timeout.InfiniteTimeSpan, Timeout.InfiniteTimeSpan);
    }

    /// <summary>Gets whether the deadline passed and cancelled its target (rather than something else cancelling it).</summary>
    public bool HasPassed => Volatile.Read(ref _passed) == 1;

    /// <summary>Any thread: the timeout counts from now, for the wait under way or the next.</summary>
    public void Touch() => Volatile.Write(ref _since, _clock.GetTimestamp());

    public void Dispose() => _timer.Dispose();

    // The timer thread. A touch since the wait began puts the deadline off; the timer may fire once more after Dispose,
    // when the target may be gone.
    private void Passed()
    {
        if (Volatile.Read(ref _armed) == 0)
        {
            return;
        }

        var left = _timeout - _clock.GetElapsedTime(Volatile.Read(ref _since));
        if (left > TimeSpan.Zero)
        {
            try
            {
                _timer.Change(left, Timeout.InfiniteTimeSpan);
            }
            catch (ObjectDisposedException)
            {
                // The stream ended meanwhile.
            }

            return;
        }

        Volatile.Write(ref _passed, 1);
        try
        {
            _target.Cancel();
        }
        catch (ObjectDisposedException)
        {
            // The stream ended meanwhile.
        }
    }
}
