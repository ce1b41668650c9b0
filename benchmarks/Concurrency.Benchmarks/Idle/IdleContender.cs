using System.Reactive.Concurrency;
using System.Reactive.Linq;
using System.Reactive.Subjects;
using System.Threading.Tasks.Dataflow;
using Concurrency.Messaging.Linq;
using Concurrency.Messaging.Pipes;

namespace Concurrency.Benchmarks.Idle;

/// <summary>
/// One way of keeping a consumer around with nothing to do, as the idle command builds it: a pipe of each kind under its
/// default runner and under the other one (a Channel pipe's default is the pool), each drop-in operator subscribed to a Subject, and the peers (Rx ObserveOn, Dataflow ActionBlock). Each instance is handed one
/// message first, so its consumer has run and then gone idle, as in a real program between bursts.
/// </summary>
public sealed record IdleContender(string Name, Func<Action, IdleInstance> Create)
{
    public static IReadOnlyList<IdleContender> All { get; } =
    [
        Pipe("Ring", PipeKind.Ring, new PipeOptions()),
        Pipe("BatchDrainQueue", PipeKind.BatchDrainQueue, new PipeOptions()),
        Pipe("ReaderWriterLockQueue", PipeKind.ReaderWriterLockQueue, new PipeOptions()),
        Pipe("ChannelUnbounded", PipeKind.Channel, new PipeOptions()),
        Pipe("ChannelBounded", PipeKind.Channel, new PipeOptions { Capacity = 4096 }),
        Pipe("BlockingCollection", PipeKind.BlockingCollection, new PipeOptions()),
        Pipe("ObserveOn pipe (TaskPool)", PipeKind.ObserveOn, new PipeOptions()),
        Pipe("Ring, pool runner", PipeKind.Ring, new PipeOptions { Runner = PipeRunner.ThreadPool }),
        Pipe("BatchDrainQueue, pool runner", PipeKind.BatchDrainQueue, new PipeOptions { Runner = PipeRunner.ThreadPool }),
        Pipe("ReaderWriterLockQueue, pool runner", PipeKind.ReaderWriterLockQueue, new PipeOptions { Runner = PipeRunner.ThreadPool }),
        Pipe("ChannelUnbounded, dedicated thread", PipeKind.Channel, new PipeOptions { Runner = PipeRunner.DedicatedThread }),
        Pipe("BlockingCollection, pool runner", PipeKind.BlockingCollection, new PipeOptions { Runner = PipeRunner.ThreadPool }),
        Pipe("ObserveOn pipe (TaskPool), pool runner", PipeKind.ObserveOn, new PipeOptions { Runner = PipeRunner.ThreadPool }),
        Operator("ObserveOnRing", s => s.ObserveOnRing()),
        Operator("ObserveOnChannel", s => s.ObserveOnChannel()),
        Operator("ObserveOnLockedQueue", s => s.ObserveOnLockedQueue()),
        Operator("Rx ObserveOn (TaskPool)", s => s.ObserveOn(TaskPoolScheduler.Default)),
        new("Dataflow ActionBlock", handled =>
        {
            var block = new ActionBlock<int>(_ => handled(), new ExecutionDataflowBlockOptions { SingleProducerConstrained = true });
            block.Post(1);
            return new IdleInstance(() => block.Complete());
        }),
    ];

    private static IdleContender Pipe(string name, PipeKind kind, PipeOptions options) => new(name, handled =>
    {
        var pipe = Concurrency.Messaging.Pipes.Pipe.Create<int>(kind, _ => handled(), options);
        pipe.Post(1);
        return new IdleInstance(() => pipe.DisposeAsync().AsTask().Wait());
    });

    private static IdleContender Operator(string name, Func<IObservable<int>, IObservable<int>> hop) => new(name, handled =>
    {
        var subject = new Subject<int>();
        var subscription = hop(subject).Subscribe(_ => handled());
        subject.OnNext(1);
        return new IdleInstance(() =>
        {
            subscription.Dispose();
            subject.Dispose();
        });
    });
}
