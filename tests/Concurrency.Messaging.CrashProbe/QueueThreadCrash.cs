using System.Collections;
using System.Collections.Concurrent;
using System.Reflection;
using Concurrency.Messaging.Pipes;

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

    /// <summary>Says yes to every add and keeps nothing: the state in which the collection's count and contents disagree.</summary>
    private sealed class LosingCollection : IProducerConsumerCollection<long>
    {
        public int Count => 0;

        public bool IsSynchronized => false;

        public object SyncRoot => this;

        public bool TryAdd(long item) => true;

        public bool TryTake(out long item)
        {
            item = 0;
            return false;
        }

        public long[] ToArray() => [];

        public void CopyTo(long[] array, int index)
        {
        }

        public void CopyTo(Array array, int index)
        {
        }

        public IEnumerator<long> GetEnumerator() => Enumerable.Empty<long>().GetEnumerator();

        IEnumerator IEnumerable.GetEnumerator() => GetEnumerator();
    }
}
