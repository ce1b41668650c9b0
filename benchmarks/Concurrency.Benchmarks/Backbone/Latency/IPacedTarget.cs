
namespace Concurrency.Benchmarks.Backbone.Latency;

/// <summary>
/// Something the latency command offers messages to on a <see cref="Schedule"/>: a hand-off path or a few actors, built
/// once and run many times. A run posts its messages from the calling thread, each when due, waits (bounded) until every
/// one was handled, verifies what arrived (count, checksum, order) and throws on a mismatch: a fast wrong answer is not a
/// result.
/// </summary>
internal interface IPacedTarget : IDisposable
{
    /// <summary>Runs <paramref name="messages"/> messages on <paramref name="schedule"/>.</summary>
    /// <returns>The latencies of every consumer merged, and the seconds from the schedule's start to the last one handled.</returns>
    PacedOutcome Run(int messages, Schedule schedule);
}

/// <summary>One verified paced run: its latencies, and how long it took from the first due time to the last message handled.</summary>
internal sealed record PacedOutcome(LatencyDistribution Latency, double Seconds);
