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

    // 1 while the timer is set to fire: set by the wait that sets the timer, cleared by the timer when it finds no wait.
    private int _scheduled;

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
    /// <remarks>
    /// Changing a timer takes the runtime's timer-queue lock, and a busy stream waits twice a batch: so a wait sets the
    /// timer only when it is not set already. A timer set for an earlier wait fires early for this one, finds it armed
    /// and sets itself again for the time left; one that finds no wait armed stops, and the next wait sets it.
    /// </remarks>
    public void Arm()
    {
        Volatile.Write(ref _since, _clock.GetTimestamp());

        // A full fence between arming and reading _scheduled, as between the timer's clearing it and reading _armed: of a
        // wait armed as the timer stops, one of the two sees the other, and the timer is set again (see Passed).
        Interlocked.Exchange(ref _armed, 1);
        if (Volatile.Read(ref _scheduled) == 0 && Interlocked.CompareExchange(ref _scheduled, 1, 0) == 0)
        {
            _timer.Change(_timeout, Timeout.InfiniteTimeSpan);
        }
    }

    /// <summary>
    /// The wait ended in time: the timer stays set, and stops when it fires and finds no wait. One that ended just as the
    /// deadline passed may still see the target cancelled.
    /// </summary>
    public void Disarm() => Volatile.Write(ref _armed, 0);

    /// <summary>Gets whether the deadline passed and cancelled its target (rather than something else cancelling it).</summary>
    public bool HasPassed => Volatile.Read(ref _passed) == 1;

    /// <summary>Any thread: the timeout counts from now, for the wait under way or the next.</summary>
    public void Touch() => Volatile.Write(ref _since, _clock.GetTimestamp());

    public void Dispose() => _timer.Dispose();

    // The timer thread. With no wait armed it stops (unless one was armed as it stopped); a touch since the wait began puts
    // the deadline off; the timer may fire once more after Dispose, when the target may be gone.
    private void Passed()
    {
        if (Volatile.Read(ref _armed) == 0)
        {
            Interlocked.Exchange(ref _scheduled, 0);
            if (Volatile.Read(ref _armed) == 0 || Interlocked.CompareExchange(ref _scheduled, 1, 0) != 0)
            {
                return; // stopped; or a wait armed meanwhile set the timer itself
            }
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
        Volatile.Write(ref _scheduled, 0); // a later wait, if any, sets the timer again
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
