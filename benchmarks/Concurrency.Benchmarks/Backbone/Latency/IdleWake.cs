using System.Diagnostics;
using Concurrency.Benchmarks.Actors;
using Concurrency.Benchmarks.CrossProcess;
using Concurrency.Benchmarks.HandOff;
using Concurrency.Messaging.Grpc;

namespace Concurrency.Benchmarks.Backbone.Latency;

/// <summary>
/// Idle-to-first-message latency: a pipe, operator, actor or gRPC client that handled a message and then sat idle (its
/// consumer parked, or its pool runner gone back to the pool) is handed one message; how long until it is handled (for
/// the client, until its reply is back). This is what a parked consumer or a pool runner costs a user whose messages come
/// now and then. Each wake is counted: exactly one handling per message handed over.
/// </summary>
internal static class IdleWake
{
    /// <summary>A hand-off contender built as the idle command builds it (it handled one message), woken <paramref name="times"/> times.</summary>
    public static IdleLatency HandOff(Contender<HandOffBuild> contender, int times, TimeSpan idle)
    {
        long handledAt = 0; // written by the consumer before it releases the semaphore, read by this thread after
        using var handled = new SemaphoreSlim(0);
        using var instance = contender.Build.Idle!(() =>
        {
            Volatile.Write(ref handledAt, Stopwatch.GetTimestamp());
            handled.Release();
        });
        Await(handled, contender.Name); // the message it was handed as it was built
        var values = new List<double>(times);
        for (var i = 0; i < times; i++)
        {
            Thread.Sleep(idle);
            var posted = Stopwatch.GetTimestamp();
            instance.Post();
            Await(handled, contender.Name);
            values.Add(Stopwatch.GetElapsedTime(posted, Volatile.Read(ref handledAt)).TotalMicroseconds);
        }

        Thread.Sleep(10); // a second handling of the same message would show here
        if (handled.CurrentCount != 0)
        {
            throw new InvalidOperationException($"{contender.Name} handled {handled.CurrentCount} message(s) more than it was handed.");
        }

        return new IdleLatency(LatencyCommand.IdleScenario, contender.Name, contender.Family, values);
    }

    /// <summary>One actor of a contender (the told game's), woken <paramref name="times"/> times; each wake is a verified run of one message.</summary>
    public static IdleLatency Actor(Contender<ActorBuild> contender, int times, TimeSpan idle)
    {
        using var target = new PacedActors(contender.Build.Create(), PacedActorGame.Told, $"{contender.Name}, idle");
        var values = new List<double>(times);
        for (var i = 0; i < times; i++)
        {
            Thread.Sleep(idle);
            values.Add(target.Run(1, Schedule.AllNow()).Latency.Max);
        }

        return new IdleLatency(LatencyCommand.IdleScenario, contender.Name, contender.Family, values);
    }

    /// <summary>
    /// Our gRPC client in <paramref name="mode"/>, to an echo server in this process: one request answered, then
    /// <paramref name="times"/> times idle and one request, timed to its reply; each wake is a verified run of one message.
    /// </summary>
    public static IdleLatency Grpc(Contender<GrpcBuild> contender, PeerMode mode, int times, TimeSpan idle)
    {
        ArgumentNullException.ThrowIfNull(contender);
        using var target = PacedGrpc.Start(mode, $"{contender.Name}, idle");
        target.Run(1, Schedule.AllNow()); // the one message handled before sitting idle, as for every idle contender
        var values = new List<double>(times);
        for (var i = 0; i < times; i++)
        {
            Thread.Sleep(idle);
            values.Add(target.Run(1, Schedule.AllNow()).Latency.Max);
        }

        return new IdleLatency(LatencyCommand.IdleScenario, contender.Name, contender.Family, values);
    }

    private static void Await(SemaphoreSlim handled, string name)
    {
        if (!handled.Wait(RunLimit.Timeout))
        {
            throw RunLimit.Stuck($"{name}: handling one message after it sat idle");
        }
    }
}
