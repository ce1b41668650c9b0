namespace Concurrency.Messaging.Grpc.Tests;

/// <summary>
/// The deadline of a stream's reads and writes, on a fake clock (its timers fire on the test's thread as the clock is
/// advanced): each wait is timed from its own start, however the timer was set for the waits before it, and a busy
/// stream's waits do not change the timer once each.
/// </summary>
public sealed class PeerDeadlineTests
{
    private static readonly TimeSpan Timeout = TimeSpan.FromSeconds(30);

    [Fact]
    public void AWaitPastTheTimeout_CancelsTheTarget_AndOneEndedInTimeDoesNot()
    {
        using var clock = new Clocked();
        var (time, target, deadline) = (clock.Time, clock.Target, clock.Deadline);

        deadline.Arm();
        time.Advance(TimeSpan.FromSeconds(29));
        deadline.Disarm();
        time.Advance(TimeSpan.FromSeconds(60));
        Assert.False(target.IsCancellationRequested);

        deadline.Arm();
        time.Advance(TimeSpan.FromSeconds(29));
        Assert.False(target.IsCancellationRequested);
        time.Advance(TimeSpan.FromSeconds(1));
        Assert.True(target.IsCancellationRequested);
        Assert.True(deadline.HasPassed);
    }

    [Fact]
    public void AWaitArmedWhileTheTimerIsSetForAnEarlierOne_IsTimedFromItsOwnStart()
    {
        using var clock = new Clocked();
        var (time, target, deadline) = (clock.Time, clock.Target, clock.Deadline);

        deadline.Arm(); // sets the timer for 30 s
        time.Advance(TimeSpan.FromSeconds(10));
        deadline.Disarm();
        time.Advance(TimeSpan.FromSeconds(10));
        deadline.Arm(); // at 20 s: the timer, set already, fires at 30 s, finds this wait 10 s old and sets itself for 20 more
        time.Advance(TimeSpan.FromSeconds(29)); // 49 s
        Assert.False(target.IsCancellationRequested);
        time.Advance(TimeSpan.FromSeconds(1)); // 50 s: this wait's 30 s
        Assert.True(target.IsCancellationRequested);
    }

    [Fact]
    public void ATimerThatFiresWithNoWait_Stops_AndTheNextWaitSetsItAgain()
    {
        using var clock = new Clocked();
        var (time, target, deadline, timer) = (clock.Time, clock.Target, clock.Deadline, clock.Timer);

        deadline.Arm();
        deadline.Disarm();
        time.Advance(TimeSpan.FromSeconds(30)); // fires, finds no wait: stops
        var changes = timer.Changes;
        time.Advance(TimeSpan.FromSeconds(10));
        deadline.Arm(); // at 40 s
        Assert.Equal(changes + 1, timer.Changes);
        time.Advance(TimeSpan.FromSeconds(29));
        Assert.False(target.IsCancellationRequested);
        time.Advance(TimeSpan.FromSeconds(1));
        Assert.True(target.IsCancellationRequested);
    }

    [Fact]
    public void ATouch_PutsTheDeadlineOff()
    {
        using var clock = new Clocked();
        var (time, target, deadline) = (clock.Time, clock.Target, clock.Deadline);

        deadline.Arm();
        time.Advance(TimeSpan.FromSeconds(20));
        deadline.Touch();
        time.Advance(TimeSpan.FromSeconds(20)); // 40 s: 20 s since the touch
        Assert.False(target.IsCancellationRequested);
        time.Advance(TimeSpan.FromSeconds(10));
        Assert.True(target.IsCancellationRequested);
    }

    [Fact]
    public void ABusyStreamsWaits_SetTheTimerOnce_NotOnceAWait()
    {
        using var clock = new Clocked();
        var (time, target, deadline, timer) = (clock.Time, clock.Target, clock.Deadline, clock.Timer);

        // 10,000 waits of a millisecond each, 10 s in all: the first sets the timer; the rest find it set.
        for (var wait = 0; wait < 10_000; wait++)
        {
            deadline.Arm();
            time.Advance(TimeSpan.FromMilliseconds(1));
            deadline.Disarm();
        }

        Assert.Equal(1, timer.Changes);
        Assert.False(target.IsCancellationRequested);
    }

    // A deadline on a fake clock whose timer's changes are counted, with the target it cancels; disposed with the test.
    private sealed class Clocked : IDisposable
    {
        public Clocked()
        {
            var clock = new CountingClock(Time);
            Deadline = new PeerDeadline(clock, Timeout, Target);
            Timer = clock.Made!;
        }

        public FakeTimeProvider Time { get; } = new();

        public CancellationTokenSource Target { get; } = new();

        public PeerDeadline Deadline { get; }

        public CountingClock.Timer Timer { get; }

        public void Dispose()
        {
            Deadline.Dispose();
            Target.Dispose();
        }
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
