using System.Diagnostics;
using Concurrency.Benchmarks.Backbone.Latency;

namespace Concurrency.Benchmarks.Actors;

/// <summary>
/// Actors offered messages from outside on a schedule, as the actor ring plays them all at once: with one actor, the
/// runner tells that actor each message (<see cref="PacedActorGame.Told"/>); with two, it sends each request to one actor,
/// which replies to the other, where the message is timed (<see cref="PacedActorGame.RequestReply"/>: a request and its reply,
/// two mailboxes, as a request/reply between two actors pays). Each message is timed when the last actor handles it, and
/// every run is verified (messages delivered at every actor, and the sum of the token numbers).
/// </summary>
/// <remarks>Concurrency rule: every member runs on the runner's thread; the actors' side is <see cref="RingLaps"/>'s.</remarks>
internal sealed class PacedActors : IPacedTarget
{
    private readonly IActorContender _contender;
    private readonly int _actors;
    private readonly string _label;
    private readonly LatencyRecorder _recorder = new(); // the last actor's: it ends every lap

    public PacedActors(IActorContender contender, PacedActorGame game, string label)
    {
        _contender = contender;
        _actors = game == PacedActorGame.Told ? 1 : 2;
        _label = label;
        try
        {
            contender.SetUpRing(_actors);
        }
        catch
        {
            contender.Dispose(); // a failed setup leaves no actor system running
            throw;
        }
    }

    public PacedOutcome Run(int messages, Schedule schedule)
    {
        _recorder.Arm(schedule, placeBefore: 0); // token k is message k − 1
        var totals = _contender.RunRing(messages, allAtOnce: true, _recorder);
        var seconds = Stopwatch.GetElapsedTime(schedule.Start).TotalSeconds;
        var expected = new RunTotals((long)_actors * messages, (long)messages * (messages + 1) / 2);
        if (totals != expected || _recorder.Histogram.TotalCount != messages)
        {
            throw new InvalidOperationException($"{_label}: delivered {totals} and timed {_recorder.Histogram.TotalCount}, expected {expected} and {messages}.");
        }

        return new PacedOutcome(LatencyDistribution.Merge([_recorder.Histogram]), seconds);
    }

    public void Dispose() => _contender.Dispose();
}

/// <summary>The two actor games the latency command plays.</summary>
internal enum PacedActorGame
{
    /// <summary>One actor told each message from outside.</summary>
    Told,

    /// <summary>A request to one actor, its reply to another, timed at the reply.</summary>
    RequestReply,
}
