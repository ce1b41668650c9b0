using System.Diagnostics;
using Concurrency.Benchmarks.Backbone.Latency;
using HdrHistogram;

namespace Concurrency.Benchmarks.Tests;

/// <summary>The coordinated-omission arithmetic: messages timed from when they were due, so a stall shows in the percentiles.</summary>
public sealed class LatencyRecorderTests
{
    private static readonly long Millisecond = Stopwatch.Frequency / 1000;
    private static readonly long TenMicroseconds = Stopwatch.Frequency / 100_000;

    [Fact]
    public void Merge_AConsumerStalledFor100Ms_TimedFromDue_ShowsTheStallInTheTail()
    {
        // 1,000 messages due every millisecond; the consumer takes 10 µs each, except that it stalls for 100 ms at message
        // 500 and handles the 100 messages that came due meanwhile as soon as it is back.
        var schedule = new Schedule(0, Millisecond);
        var recorder = new LatencyRecorder();
        recorder.Arm(schedule, placeBefore: 0);

        foreach (var handled in Handled(schedule))
        {
            recorder.RecordLatency(handled.At - schedule.DueOf(handled.Index));
        }

        var latency = LatencyDistribution.Merge([recorder.Histogram]);
        Assert.Equal(1000, latency.Count);
        Assert.InRange(latency.P50, 9.9, 10.1);
        Assert.InRange(latency.P99, 89_000, 92_000);   // the 10th-longest wait behind the stall: about 100 − 10 ms
        Assert.InRange(latency.Max, 99_900, 100_200);
    }

    [Fact]
    public void Merge_TheSameStallTimedFromSend_HidesIt_WhichIsWhyMessagesAreTimedFromDue()
    {
        // A closed-loop producer waits for the stalled consumer, so only one message sees the stall: p99 says 10 µs.
        var histogram = new LongHistogram(LatencyRecorder.LongestNanoseconds, 3);
        for (var i = 0; i < 1000; i++)
        {
            histogram.RecordValue(i == 500 ? 100_000_000 : 10_000);
        }

        var latency = LatencyDistribution.Merge([histogram]);

        Assert.InRange(latency.P99, 9.9, 10.1);
        Assert.InRange(latency.Max, 99_900, 100_200);
    }

    [Fact]
    public void Handled_PlaceInTheConsumersCount_IsTimedFromThatMessagesDueTime()
    {
        var recorder = new LatencyRecorder();
        var start = Stopwatch.GetTimestamp() - Stopwatch.Frequency; // message 0 was due a second ago
        recorder.Arm(new Schedule(start, Stopwatch.Frequency / 2.0), placeBefore: 41);

        recorder.Handled(42); // message 0
        recorder.Handled(43); // message 1, due half a second ago

        var latency = LatencyDistribution.Merge([recorder.Histogram]);
        Assert.Equal(2, latency.Count);
        Assert.InRange(latency.Max, 1_000_000, 60_000_000);
        Assert.InRange(latency.Curve[0], 500_000, latency.Max - 400_000);
    }

    [Fact]
    public void Merge_OneRecorderPerConsumer_AddsThemUp()
    {
        var (a, b) = (new LatencyRecorder(), new LatencyRecorder());
        a.RecordLatency(Millisecond);
        b.RecordLatency(3 * Millisecond);
        b.RecordLatency(TenMicroseconds);

        var latency = LatencyDistribution.Merge([a.Histogram, b.Histogram]);

        Assert.Equal(3, latency.Count);
        Assert.InRange(latency.Max, 2_990, 3_010);
        Assert.Equal(LatencyDistribution.CurveLevels.Count, latency.Curve.Count);
        Assert.Throws<ArgumentException>(() => LatencyDistribution.Merge([]));
    }

    [Fact]
    public void Schedule_DueTimes_FollowTheRateFromTheStart()
    {
        var schedule = Schedule.At(1_000);

        Assert.Equal(schedule.Start + (250 * Millisecond), schedule.DueOf(250), tolerance: 1);
        Assert.Equal(1_000, schedule.MessagesPerSecond, tolerance: 1e-6);
        Assert.Equal(double.PositiveInfinity, Schedule.AllNow().MessagesPerSecond);
    }

    [Theory]
    [InlineData(1_000, 2.0, 2_000)]
    [InlineData(10, 2.0, LatencyPlan.FewestMessages)]
    [InlineData(100_000, 2.0, 4 * (1 << 16))]     // 200,000 messages round up to whole blocks of 65,536
    [InlineData(1e9, 2.0, LatencyPlan.MostMessages)]
    public void MessagesAt_ARate_IsTheRunsWorthClampedToWholeBlocks(double rate, double seconds, int expected)
    {
        var plan = LatencyPlan.Full with { Seconds = seconds };

        Assert.Equal(expected, plan.MessagesAt(rate));
    }

    private static IEnumerable<(int Index, long At)> Handled(Schedule schedule)
    {
        var stallEnds = schedule.DueOf(500) + (100 * Millisecond);
        for (var i = 0; i < 1000; i++)
        {
            var due = schedule.DueOf(i);
            yield return (i, i is >= 500 and < 600 ? Math.Max(stallEnds, due) + TenMicroseconds : due + TenMicroseconds);
        }
    }
}
