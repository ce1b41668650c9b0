using System.Reactive.Concurrency;
using System.Reactive.Linq;
using System.Reactive.Subjects;
using System.Threading.Tasks.Dataflow;
using Concurrency.Benchmarks.Backbone.Idle;
using Concurrency.Benchmarks.HandOff.Paths;
using Concurrency.Messaging.Linq;
using Concurrency.Messaging.Pipes;

namespace Concurrency.Benchmarks.HandOff;

/// <summary>
/// How the hand-off game builds a contender: as a path one producer posts blocks through (the headline, the plain loop
/// and its head to head), and as an idle consumer (the idle command). A contender may play only one of the two: the
/// ceilings have no idle consumer worth measuring, and the idle command also measures each pipe under its other runner.
/// </summary>
/// <param name="Path">A fresh path, or null where the contender is not a headline path.</param>
/// <param name="Idle">A fresh idle consumer that calls its argument for each message it handles, or null.</param>
/// <param name="NeverParks">
/// Whether its consumer spins while idle, so that a head to head builds it afresh for each run instead of keeping it
/// beside the others, where it would take their time.
/// </param>
public sealed record HandOffBuild(Func<IMessagePath>? Path, Func<Action, IdleInstance>? Idle = null, bool NeverParks = false)
{
    /// <summary>Gets whether it is an Rx operator, Rx's own ObserveOn or our drop-in for it: what a user's Rx pipeline can take.</summary>
    public bool IsOperator { get; init; }
}

/// <summary>
/// The hand-off game's contenders, 1 producer → 1 consumer: the ceilings, Rx's ObserveOn, our drop-in operators, our
/// pipes, then the other .NET ways (a pipe over Channel, BlockingCollection, Dataflow's ActionBlock); then each pipe under
/// the runner it does not use by default (idle only); then whatever an <see cref="IContenderSource{HandOffBuild}"/> adds.
/// </summary>
public static class HandOffContenders
{
    public static ContenderRegistry<HandOffBuild> Registry { get; } = new("hand-off",
    [
        new("DirectCall", ContenderFamily.Ceiling, new HandOffBuild(() => new DirectCallPath())) { Note = "the handler called on the producer's thread" },
        new("RawRing", ContenderFamily.Ceiling, new HandOffBuild(() => new RawRingPath(), NeverParks: true)) { Note = "a busy-spinning ring: the fastest hand-off we can write" },
        Rx("RxObserveOnTaskPool", s => s.ObserveOn(TaskPoolScheduler.Default)),
        Rx("RxObserveOnThreadPool", s => s.ObserveOn(ThreadPoolScheduler.Instance)),
        new("RxObserveOnEventLoop", ContenderFamily.Rx, new HandOffBuild(EventLoop) { IsOperator = true }),
        Operator("ObserveOnRing", s => s.ObserveOnRing(Capacities.Bounded), s => s.ObserveOnRing()),
        Operator("ObserveOnLockedQueue", s => s.ObserveOnLockedQueue(), s => s.ObserveOnLockedQueue()),
        Operator("ObserveOnChannel", s => s.ObserveOnChannel(), s => s.ObserveOnChannel()),
        Pipe("ReaderWriterLockQueue", PipeKind.ReaderWriterLockQueue, new PipeOptions()),
        Pipe("BatchDrainQueue", PipeKind.BatchDrainQueue, new PipeOptions()),
        Pipe("Ring", PipeKind.Ring, new PipeOptions { Capacity = Capacities.Bounded }),
        Pipe("ChannelUnbounded", PipeKind.Channel, new PipeOptions()),
        Pipe("ChannelBounded", PipeKind.Channel, new PipeOptions { Capacity = Capacities.Bounded }),
        Pipe("BlockingCollection", PipeKind.BlockingCollection, new PipeOptions()),
        new("DataflowActionBlock", ContenderFamily.Dataflow, new HandOffBuild(() => new ActionBlockPath(), IdleActionBlock)),
        IdlePipe("ObserveOn pipe (TaskPool)", PipeKind.ObserveOn, new PipeOptions()),
        IdlePipe("Ring, pool runner", PipeKind.Ring, new PipeOptions { Runner = PipeRunner.ThreadPool }),
        IdlePipe("BatchDrainQueue, pool runner", PipeKind.BatchDrainQueue, new PipeOptions { Runner = PipeRunner.ThreadPool }),
        IdlePipe("ReaderWriterLockQueue, pool runner", PipeKind.ReaderWriterLockQueue, new PipeOptions { Runner = PipeRunner.ThreadPool }),
        IdlePipe("ChannelUnbounded, dedicated thread", PipeKind.Channel, new PipeOptions { Runner = PipeRunner.DedicatedThread }),
        IdlePipe("BlockingCollection, pool runner", PipeKind.BlockingCollection, new PipeOptions { Runner = PipeRunner.ThreadPool }),
        IdlePipe("ObserveOn pipe (TaskPool), pool runner", PipeKind.ObserveOn, new PipeOptions { Runner = PipeRunner.ThreadPool }),
    ]);

    /// <summary>Gets the headline paths' names, in table order (BenchmarkDotNet's [ParamsSource] for the headline).</summary>
    public static IEnumerable<string> Paths => Registry.All.Where(c => c.Build.Path is not null).Select(c => c.Name);

    /// <summary>Gets the contenders the idle command measures, in table order.</summary>
    public static IEnumerable<Contender<HandOffBuild>> Idle => Registry.All.Where(c => c.Build.Idle is not null);

    /// <summary>A fresh headline path of the named contender.</summary>
    /// <exception cref="ArgumentException">No such contender, or it is not a headline path.</exception>
    public static IMessagePath CreatePath(string name)
        => (Registry[name].Build.Path ?? throw new ArgumentException($"The hand-off contender '{name}' is measured idle only; it has no headline path.", nameof(name)))();

    private static Contender<HandOffBuild> Pipe(string name, PipeKind kind, PipeOptions options)
        => new(name, ContenderFamily.Ours, new HandOffBuild(() => new PipePath(kind, options), IdlePipeOf(kind, options)));

    private static Contender<HandOffBuild> IdlePipe(string name, PipeKind kind, PipeOptions options)
        => new(name, ContenderFamily.Ours, new HandOffBuild(null, IdlePipeOf(kind, options)));

    private static Contender<HandOffBuild> Rx(string name, Func<IObservable<Backbone.Harness.Message>, IObservable<Backbone.Harness.Message>> hop)
        => new(name, ContenderFamily.Rx, new HandOffBuild(() => new ObservablePath(hop), name == "RxObserveOnTaskPool" ? IdleOperator(s => s.ObserveOn(TaskPoolScheduler.Default)) : null) { IsOperator = true });

    private static Contender<HandOffBuild> Operator(string name, Func<IObservable<Backbone.Harness.Message>, IObservable<Backbone.Harness.Message>> hop, Func<IObservable<int>, IObservable<int>> idleHop)
        => new(name, ContenderFamily.Ours, new HandOffBuild(() => new ObservablePath(hop), IdleOperator(idleHop)) { IsOperator = true });

    private static ObservablePath EventLoop()
    {
        var loop = new EventLoopScheduler();
        return new ObservablePath(s => s.ObserveOn(loop), loop);
    }

    // An idle consumer is handed one message first, so that it has run and then gone idle, as in a program between bursts.
    private static Func<Action, IdleInstance> IdlePipeOf(PipeKind kind, PipeOptions options) => handled =>
    {
        var pipe = Concurrency.Messaging.Pipes.Pipe.Create<int>(kind, _ => handled(), options);
        pipe.Post(1);
        return new IdleInstance(() => pipe.Post(1), () => pipe.DisposeAsync().AsTask().Wait());
    };

    private static Func<Action, IdleInstance> IdleOperator(Func<IObservable<int>, IObservable<int>> hop) => handled =>
    {
        var subject = new Subject<int>();
        var subscription = hop(subject).Subscribe(_ => handled());
        subject.OnNext(1);
        return new IdleInstance(() => subject.OnNext(1), () =>
        {
            subscription.Dispose();
            subject.Dispose();
        });
    };

    private static IdleInstance IdleActionBlock(Action handled)
    {
        var block = new ActionBlock<int>(_ => handled(), new ExecutionDataflowBlockOptions { SingleProducerConstrained = true });
        block.Post(1);
        return new IdleInstance(() => block.Post(1), () => block.Complete());
    }
}
