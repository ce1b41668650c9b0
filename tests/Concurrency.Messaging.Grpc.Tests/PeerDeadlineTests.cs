namespace Concurrency.Messaging.Grpc.Tests;

/// <summary>
/// The deadline of a stream's reads and writes, on a fake clock (its timers fire on the test's thread as the clock is
/// advanced): each wait is timed from its own start, however the timer was set for the waits before it, and a busy
/// stream's waits do not change the timer once each.
/// </summary>
public sealed class PeerDeadlineTests : IDisposable
{
    private static readonly TimeSpan Timeout = TimeSpan.FromSeconds(30);

    // Each test gets its own (xUnit makes an instance per test): a deadline on a fake clock whose timer's changes are
    // counted, with the target it cancels.
    private readonly FakeTimeProvider _time = new();
    private readonly CancellationTokenSource _target = new();
    private readonly PeerDeadline _deadline;
    private readonly CountingClock.Timer _timer;

    public PeerDeadlineTests()
    {
        var clock = new CountingClock(_time);
        _deadline = new PeerDeadline(clock, Timeout, _target);
        _timer = clock.Made!;
    }

    [Fact]
    public void AWaitPastTheTimeout_CancelsTheTarget_AndOneEndedInTimeDoesNot()
    {
        _deadline.Arm();
        _time.Advance(TimeSpan.FromSeconds(29));
        _deadline.Disarm();
        _time.Advance(TimeSpan.FromSeconds(60));
        Assert.False(_target.IsCancellationRequested);

        _deadline.Arm();
        AssertCancelsAfter(TimeSpan.FromSeconds(30));
        Assert.True(_deadline.HasPassed);
    }

    [Fact]
    public void AWaitArmedWhileTheTimerIsSetForAnEarlierOne_IsTimedFromItsOwnStart()
    {
        _deadline.Arm(); // sets the timer for 30 s
        _time.Advance(TimeSpan.FromSeconds(10));
        _deadline.Disarm();
        _time.Advance(TimeSpan.FromSeconds(10));
        _deadline.Arm(); // at 20 s: the timer, set already, fires at 30 s, finds this wait 10 s old and sets itself for 20 more

        AssertCancelsAfter(TimeSpan.FromSeconds(30)); // at 50 s: this wait's 30 s
    }

    [Fact]
    public void ATimerThatFiresWithNoWait_Stops_AndTheNextWaitSetsItAgain()
    {
        _deadline.Arm();
        _deadline.Disarm();
        _time.Advance(TimeSpan.FromSeconds(30)); // fires, finds no wait: stops
        var changes = _timer.Changes;
        _time.Advance(TimeSpan.FromSeconds(10));
        _deadline.Arm(); // at 40 s
        Assert.Equal(changes + 1, _timer.Changes);

        AssertCancelsAfter(TimeSpan.FromSeconds(30));
    }

    [Fact]
    public void ATouch_PutsTheDeadlineOff()
    {
        _deadline.Arm();
        _time.Advance(TimeSpan.FromSeconds(20));
        _deadline.Touch();

        AssertCancelsAfter(TimeSpan.FromSeconds(30)); // 30 s since the touch, 50 s since the wait began
    }

    [Fact]
    public void ABusyStreamsWaits_SetTheTimerOnce_NotOnceAWait()
    {
        // 10,000 waits of a millisecond each, 10 s in all: the first sets the timer; the rest find it set.
        for (var wait = 0; wait < 10_000; wait++)
        {
            _deadline.Arm();
            _time.Advance(TimeSpan.FromMilliseconds(1));
            _deadline.Disarm();
        }

        Assert.Equal(1, _timer.Changes);
        Assert.False(_target.IsCancellationRequested);
    }

    public void Dispose()
    {
        _deadline.Dispose();
        _target.Dispose();
    }

    /// <summary>Moves the clock on by <paramref name="after"/> less one second: the target stands; then by that second: it is cancelled.</summary>
    private void AssertCancelsAfter(TimeSpan after)
    {
        _time.Advance(after - TimeSpan.FromSeconds(1));
        Assert.False(_target.IsCancellationRequested);
        _time.Advance(TimeSpan.FromSeconds(1));
        Assert.True(_target.IsCancellationRequested);
    }

    // The fake clock, with each Change of the timer it makes counted (the one made at start counts none).
    private sealed class CountingClock(FakeTimeProvider time) : TimeProvider
    {
        public Timer? Made { get; private set; }

        public override long TimestampFrequency => time.TimestampFrequency;

        public override long GetTimestamp() => time.GetTimestamp();

        public override DateTimeOffset GetUtcNow() => time.GetUtcNow();

        public override ITimer CreateTimer(TimerCallback callback, object? state, TimeSpan dueTime, TimeSpan period)
            => Made = new Timer(time.CreateTimer(callback, state, dueTime, period));

        public sealed class Timer(ITimer inner) : ITimer
        {
            public int Changes { get; private set; }

            public bool Change(TimeSpan dueTime, TimeSpan period)
            {
                Changes++;
                return inner.Change(dueTime, period);
            }

            public void Dispose() => inner.Dispose();

            public ValueTask DisposeAsync() => inner.DisposeAsync();
        }
    }
}
