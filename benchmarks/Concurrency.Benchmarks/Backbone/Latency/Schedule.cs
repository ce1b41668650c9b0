using System.Diagnostics;

namespace Concurrency.Benchmarks.Backbone.Latency;

/// <summary>
/// When each message of an open-loop run is due: message i (from 0) at <see cref="Start"/> + i × <see cref="Interval"/>
/// Stopwatch ticks, fixed before the run starts and never moved by how the run goes. A producer that falls behind posts
/// its late messages at once, and each is still timed from when it was due, so a stall of the path (or of the producer)
/// shows in every message it delayed: coordinated omission corrected, the wrk2 method. A message's due-time stamp is its
/// place in the run, which its consumer knows from its count (the run verifies order), so the messages stay the
/// preallocated, immutable ones every other scenario posts.
/// </summary>
/// <param name="Start">The first message's due time, in <see cref="Stopwatch"/> ticks.</param>
/// <param name="Interval">Ticks between two messages; 0 for every message due at once (the path's maximum rate).</param>
public readonly record struct Schedule(long Start, double Interval)
{
    // The producer's wait between messages: on one core it yields so that the consumer it waits for can run.
    private static readonly bool OneCore = Environment.ProcessorCount == 1;

    /// <summary>A schedule of <paramref name="messagesPerSecond"/> starting a millisecond from now.</summary>
    public static Schedule At(double messagesPerSecond)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(messagesPerSecond);
        return new Schedule(Stopwatch.GetTimestamp() + (Stopwatch.Frequency / 1000), Stopwatch.Frequency / messagesPerSecond);
    }

    /// <summary>Every message due now: the producer posts as fast as the path takes them.</summary>
    public static Schedule AllNow() => new(Stopwatch.GetTimestamp(), 0);

    /// <summary>Gets the offered rate, or infinity for <see cref="AllNow"/>.</summary>
    public double MessagesPerSecond => Interval == 0 ? double.PositiveInfinity : Stopwatch.Frequency / Interval;

    /// <summary>Message <paramref name="index"/>'s due time, in Stopwatch ticks.</summary>
    public long DueOf(long index) => Start + (long)(index * Interval);

    /// <summary>
    /// The producer's thread: returns once message <paramref name="index"/> is due, at once if it is late. Spins on the
    /// clock rather than sleeping (a sleep's wake-up is tens of microseconds late, and the lateness would be charged to the
    /// path); on one core each turn yields the core instead.
    /// </summary>
    public void AwaitDue(long index)
    {
        var due = DueOf(index);
        while (Stopwatch.GetTimestamp() < due)
        {
            if (OneCore)
            {
                Thread.Yield();
            }
            else
            {
                Thread.SpinWait(1);
            }
        }
    }
}
