using System.Diagnostics;
using HdrHistogram;

namespace Concurrency.Benchmarks.Backbone.Latency;

/// <summary>
/// One consumer's latencies in one run: for each message it handles, the time from when the message was due by the run's
/// <see cref="Schedule"/> to now, in nanoseconds, in an HdrHistogram (1 ns to an hour, 3 significant digits). One recorder
/// per consumer, since a pooled consumer has no fixed thread to key one by; the run merges them at its end
/// (<see cref="LatencyDistribution.Merge"/>).
/// </summary>
/// <remarks>
/// Concurrency rule: the runner arms it while the consumer is idle, before the run's first post (the path's hand-off
/// publishes the arming with that message); during the run only the consumer writes it (one message at a time, whichever
/// thread runs it); the runner reads it after the run's completion signal, which publishes the consumer's writes back.
/// </remarks>
public sealed class LatencyRecorder
{
    /// <summary>The longest latency the histogram holds, in nanoseconds (an hour); longer ones are recorded as this.</summary>
    public const long LongestNanoseconds = 3_600_000_000_000;

    private static readonly double NanosecondsPerTick = 1e9 / Stopwatch.Frequency;

    private readonly LongHistogram _histogram = new(LongestNanoseconds, 3); // see the remarks
    private long _placeBefore;                                              // the consumer's count before the run's first message

    /// <summary>Gets the schedule the current run is timed against.</summary>
    public Schedule Schedule { get; private set; }

    /// <summary>Gets the histogram of the current run (read it after the run's signal).</summary>
    public HistogramBase Histogram => _histogram;

    /// <summary>
    /// Runner, before the run: time messages against <paramref name="schedule"/>; the consumer's message at place
    /// <paramref name="placeBefore"/> + 1 in its count is the run's message 0.
    /// </summary>
    public void Arm(Schedule schedule, long placeBefore)
    {
        _histogram.Reset();
        Schedule = schedule;
        _placeBefore = placeBefore;
    }

    /// <summary>Consumer: the message at <paramref name="place"/> (from 1) in the consumer's count was handled now.</summary>
    public void Handled(long place)
    {
        var now = Stopwatch.GetTimestamp();
        RecordLatency(now - Schedule.DueOf(place - _placeBefore - 1));
    }

    /// <summary>Records one latency of <paramref name="ticks"/> Stopwatch ticks (negative ones as 0).</summary>
    public void RecordLatency(long ticks)
        => _histogram.RecordValue(Math.Clamp((long)(ticks * NanosecondsPerTick), 0, LongestNanoseconds));
}
