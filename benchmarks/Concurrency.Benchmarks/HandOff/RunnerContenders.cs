using Concurrency.Benchmarks.HandOff.Paths;
using Concurrency.Messaging.Pipes;

namespace Concurrency.Benchmarks.HandOff;

/// <summary>
/// The runner game's contenders, 1 producer → 1 consumer: each pipe kind with its consumer on a dedicated thread ("Ring
/// dedicated") and as turns on the thread pool ("Ring pool"), then Dataflow's ActionBlock, which runs the same way on the
/// pool. "ObserveOn" is Rx's ObserveOn behind the pipe interface (its long-running thread, or Rx's pool scheduling with
/// that optimization off), so it is Rx's. Each builds a fresh path.
/// </summary>
public static class RunnerContenders
{
    private static readonly PipeKind[] Kinds =
    [
        PipeKind.BatchDrainQueue, PipeKind.Ring, PipeKind.ReaderWriterLockQueue, PipeKind.BlockingCollection, PipeKind.Channel, PipeKind.ObserveOn,
    ];

    public static ContenderRegistry<Func<IMessagePath>> Registry { get; } = new("runners",
    [
        .. Kinds.SelectMany(kind => new[] { Pipe(kind, PipeRunner.DedicatedThread, "dedicated"), Pipe(kind, PipeRunner.ThreadPool, "pool") }),
        new("DataflowActionBlock", ContenderFamily.Dataflow, () => new ActionBlockPath()),
    ]);

    private static Contender<Func<IMessagePath>> Pipe(PipeKind kind, PipeRunner runner, string word)
    {
        var options = new PipeOptions { Runner = runner, Capacity = kind == PipeKind.Ring ? Capacities.Bounded : null };
        return new($"{kind} {word}", kind == PipeKind.ObserveOn ? ContenderFamily.Rx : ContenderFamily.Ours, () => new PipePath(kind, options));
    }
}
