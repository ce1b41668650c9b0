using System.Collections.Concurrent;
using System.Reflection;
using Concurrency.Messaging.Pipes;
using Concurrency.Messaging.Tests.Pipes;

namespace Concurrency.Messaging.CrashProbe;

/// <summary>
/// The probe's "queue-thread" mode: a <see cref="PipeKind.BlockingCollection"/> pipe on a dedicated consumer thread whose
/// queue throws (its collection accepts an add and then has nothing to take, so <c>TryTake</c> throws). The pipe must fault
/// as the pooled runner's does; an unhandled exception on the consumer thread (a non-zero exit) is the defect. Exit 0 and
/// "faulted: ..." when the pipe's completion faulted; exit 3 when it did not.
/// </summary>
internal static class QueueThreadCrash
{
    public static int Run()
    {
        var wait = TimeSpan.FromSeconds(20);
        var pipe = Pipe.Create<long>(PipeKind.BlockingCollection, _ => { }, new PipeOptions { Runner = PipeRunner.DedicatedThread });

        // The consumer may already wait in TryTake: it waits on the collection's count, and only then takes from the
        // collection swapped in here, which has nothing to give.
        var lanes = (BlockingCollection<long>[])pipe.GetType().GetField("_lanes", BindingFlags.NonPublic | BindingFlags.Instance)!.GetValue(pipe)!;
        typeof(BlockingCollection<long>).GetField("_collection", BindingFlags.NonPublic | BindingFlags.Instance)!.SetValue(lanes[0], new LosingCollection());
        pipe.TryPost(1);

        try
        {
            pipe.Completion.Wait(wait);
        }
        catch (AggregateException ex)
        {
            Console.WriteLine($"faulted: {ex.InnerException!.Message} | {ex.InnerException.InnerException?.Message}");
            return 0;
        }

        Console.Error.WriteLine($"The pipe did not fault within {wait.TotalSeconds} s: {pipe.Completion.Status}.");
        return 3;
    }
}
