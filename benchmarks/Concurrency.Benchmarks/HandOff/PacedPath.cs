using System.Diagnostics;
using Concurrency.Benchmarks.Backbone.Latency;
using Concurrency.Benchmarks.HandOff.Paths;

namespace Concurrency.Benchmarks.HandOff;

/// <summary>
/// A hand-off path offered messages one at a time on a schedule: the same path, consumer and checks the throughput
/// scenarios use (one producer, one consumer), with a <see cref="LatencyRecorder"/> on its consumer. A long run posts the
/// same preallocated block again and again, so the consumer's order and checksum checks hold across repeats.
/// </summary>
/// <remarks>Concurrency rule: every member runs on the runner's thread, which is the path's one producer.</remarks>
internal sealed class PacedPath : IPacedTarget
{
    /// <summary>The largest block a run posts from; a longer run is a whole number of these.</summary>
    public const int MaxBlock = 1 << 16;

    private readonly IMessagePath _path;
    private readonly string _label;
    private readonly LatencyRecorder _recorder = new();
    private Message[][] _singles = [];    // runner only: the current block, each message in an array of its own (Post takes arrays)

    public PacedPath(IMessagePath path, string label)
    {
        if (path.Producers != 1 || path.Consumers.Members.Count != 1)
        {
            throw new ArgumentException($"{label}: a paced path has one producer and one consumer.", nameof(path));
        }

        _path = path;
        _label = label;
        _path.Consumers.Members[0].Record(_recorder);
    }

    /// <summary>The block size a run of <paramref name="messages"/> posts from (itself, up to <see cref="MaxBlock"/>).</summary>
    public static int BlockOf(int messages) => Math.Min(messages, MaxBlock);

    public PacedOutcome Run(int messages, Schedule schedule)
    {
        var block = BlockOf(messages);
        if (_singles.Length != block)
        {
            _singles = [.. Message.Preallocate(block).Select(m => new[] { m })];
        }

        var consumers = _path.Consumers;
        consumers.Arm(messages, block);
        _recorder.Arm(schedule, consumers.Members[0].Count);
        var singles = _singles;
        for (int i = 0, j = 0; i < messages; i++, j = j + 1 == block ? 0 : j + 1)
        {
            schedule.AwaitDue(i);
            _path.Post(singles[j]);
        }

        consumers.WaitForBlock(_label);
        var seconds = Stopwatch.GetElapsedTime(schedule.Start).TotalSeconds;
        consumers.VerifyBlock(_label);
        if (_recorder.Histogram.TotalCount != messages)
        {
            throw new InvalidOperationException($"{_label}: {_recorder.Histogram.TotalCount} latencies recorded for {messages} messages.");
        }

        return new PacedOutcome(LatencyDistribution.Merge([_recorder.Histogram]), seconds);
    }

    public void Dispose()
    {
        try
        {
            _path.Complete();
        }
        finally
        {
            _path.Dispose();
        }
    }
}
