namespace Concurrency.Messaging.Tests.Workers;

/// <summary>A <see cref="FakeTimeProvider"/> that remembers every timer it made, so a test can check they were all disposed.</summary>
internal sealed class RecordingTimeProvider : TimeProvider
{
    private readonly Lock _gate = new();
    private readonly List<RecordedTimer> _timers = []; // guarded by _gate

    public FakeTimeProvider Clock { get; } = new();

    public override long TimestampFrequency => Clock.TimestampFrequency;

    public IReadOnlyList<RecordedTimer> Timers
    {
        get
        {
            lock (_gate)
            {
                return [.. _timers];
            }
        }
    }

    public override DateTimeOffset GetUtcNow() => Clock.GetUtcNow();

    public override long GetTimestamp() => Clock.GetTimestamp();

    public override ITimer CreateTimer(TimerCallback callback, object? state, TimeSpan dueTime, TimeSpan period)
    {
        var timer = new RecordedTimer(Clock.CreateTimer(callback, state, dueTime, period));
        lock (_gate)
        {
            _timers.Add(timer);
        }

        return timer;
    }
}
