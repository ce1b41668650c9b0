using System.Reactive.Subjects;
using Concurrency.Messaging.Tests.Pipes;

namespace Concurrency.Messaging.Tests.Races;

/// <summary>
/// A Subject fed from two threads at once, which breaks the Rx grammar, through a drop-in operator: Rx's own ObserveOn
/// loses nothing that way, so ours must not either. Each id is checked off in a bitmap, with each thread's order.
/// </summary>
internal static class UnserializedSource
{
    public static TheoryData<string> Operators() =>
        ["Ring", "Ring-16", "Pipe-Ring-1", "Channel", "Channel-16", "Pipe-Channel-1", "LockedQueue", "BlockingCollection-16", "Pipe-Ring-16@pool", "Pipe-LockedQueue@pool"];

    public static async Task RunAsync(string name, int perProducer, TimeSpan budget)
    {
        var log = new DeliveryLog(2, perProducer);
        var completed = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        using var subject = new Subject<long>();
        using var subscription = Apply(subject, name).Subscribe(log.Record, error => completed.TrySetException(error), () => completed.TrySetResult());
        using var start = new Barrier(2);

        var producers = Enumerable.Range(0, 2).Select(p => Task.Factory.StartNew(
            () =>
            {
                start.SignalAndWait(budget);
                for (var i = 0; i < perProducer; i++)
                {
                    subject.OnNext(DeliveryLog.Message(p, i)); // no serialization: this breaks the Rx grammar on purpose
                }
            },
            TestContext.Current.CancellationToken,
            TaskCreationOptions.LongRunning,
            TaskScheduler.Default)).ToArray();
        await Task.WhenAll(producers).WaitAsync(budget, TestContext.Current.CancellationToken);
        subject.OnCompleted();
        await completed.Task.WaitAsync(budget, TestContext.Current.CancellationToken);

        log.AssertExactlyOnceInOrder(2, perProducer);
    }

    private static IObservable<long> Apply(IObservable<long> source, string name) => name switch
    {
        "Ring" => source.ObserveOnRing(),
        "Ring-16" => source.ObserveOnRing(16),
        "Pipe-Ring-1" => source.ObserveOnPipe(PipeKind.Ring, new PipeOptions { Capacity = 1 }),
        "Channel" => source.ObserveOnChannel(),
        "Channel-16" => source.ObserveOnChannel(16),
        "Pipe-Channel-1" => source.ObserveOnPipe(PipeKind.Channel, new PipeOptions { Capacity = 1 }),
        "LockedQueue" => source.ObserveOnLockedQueue(),
        "BlockingCollection-16" => source.ObserveOnPipe(PipeKind.BlockingCollection, new PipeOptions { Capacity = 16 }),
        "Pipe-Ring-16@pool" => source.ObserveOnPipe(PipeKind.Ring, new PipeOptions { Capacity = 16, Runner = PipeRunner.ThreadPool }),
        "Pipe-LockedQueue@pool" => source.ObserveOnPipe(PipeKind.BatchDrainQueue, new PipeOptions { Runner = PipeRunner.ThreadPool }),
        _ => throw new ArgumentOutOfRangeException(nameof(name), name, "Unknown operator."),
    };
}
