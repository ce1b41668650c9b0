using Concurrency.Messaging.Internal;

namespace Concurrency.Messaging.Pipes;

/// <summary>
/// One consumer of a pipe run as turns on the .NET thread pool (<see cref="PipeRunner.ThreadPool"/>) by the
/// <see cref="TurnRunner"/>, over its side of the queue (<typeparamref name="TQueue"/>, held in place). An idle consumer
/// holds no thread and costs no CPU; the next post (or the close) schedules a turn again, through <see cref="Notify"/> for
/// a queue with an <see cref="IdleFlag"/>, or from the queue's own post for one that marks its consumer idle under its lock.
/// </summary>
internal sealed class PooledConsumer<T, TQueue> : ITurn
    where TQueue : struct, ITurnQueue<T>
{
    private readonly PipeBase<T> _pipe;
    private readonly int _budget;     // PipeOptions.MessagesPerTurn
    private PipeDelivery<T> _delivery;
    private TQueue _queue;            // used in place: the running turn takes from it, producers claim it
    private TurnBatch<T> _batch = new(); // the running turn only

    /// <param name="pipe">The pipe.</param>
    /// <param name="consumer">The consumer's number in the pipe, which its handled count goes under.</param>
    /// <param name="queue">Its side of the queue.</param>
    /// <param name="handler">Its handler.</param>
    /// <param name="budget">The most messages one turn handles.</param>
    public PooledConsumer(PipeBase<T> pipe, int consumer, TQueue queue, Action<T> handler, int budget)
    {
        _pipe = pipe;
        _queue = queue;
        _delivery = new PipeDelivery<T>(pipe, consumer, handler);
        _budget = budget;
    }

    /// <summary>
    /// Producer side, after a message was added to this consumer's queue, and the pipe, after the queue was closed: queues a
    /// turn if the consumer is idle. Any thread, any number at once; a busy consumer costs one fence and one read.
    /// </summary>
    public void Notify() => TurnRunner.WakeIfIdle<T, TQueue>(this, ref _queue, mayRunNext: false);

    /// <summary>
    /// As <see cref="Notify"/> with no fence, for the one producer of a queue whose turn goes idle behind a process-wide
    /// barrier (<see cref="IdleFlag.ReleaseBehindBarrierThenLook"/>): a post into a busy consumer costs one read.
    /// </summary>
    public void NotifyPublished()
    {
        if (_queue.TryClaimIdle())
        {
            Schedule();
        }
    }

    /// <summary>
    /// For a queue several consumers share: queues a turn for the first idle one of <paramref name="consumers"/>. If all are
    /// busy, each looks at the queue again before it goes idle, so the message is still taken.
    /// </summary>
    public static void NotifyAny(PooledConsumer<T, TQueue>[] consumers)
    {
        Interlocked.MemoryBarrier(); // the message is visible before any flag is read: see IdleFlag
        foreach (var consumer in consumers)
        {
            if (consumer._queue.TryClaimIdle())
            {
                consumer.Schedule();
                return;
            }
        }
    }

    /// <summary>
    /// After an accepted post: with one queue per consumer (broadcast, or a single consumer) every idle one needs a turn;
    /// consumers that share one queue need only the first idle one.
    /// </summary>
    public static void NotifyPosted(PooledConsumer<T, TQueue>[] consumers, bool shareOneQueue)
    {
        if (shareOneQueue)
        {
            NotifyAny(consumers);
        }
        else
        {
            NotifyAll(consumers);
        }
    }

    /// <summary>Queues a turn for every idle one of <paramref name="consumers"/>: after the close, so each finds the end.</summary>
    public static void NotifyAll(PooledConsumer<T, TQueue>[] consumers)
    {
        foreach (var consumer in consumers)
        {
            consumer.Notify();
        }
    }

    /// <summary>This consumer's side of the queue, in place: for the closer's calls a queue of its own kind offers.</summary>
    public ref TQueue Queue => ref _queue;

    public void Schedule() => TurnRunner.Schedule(this, mayRunNext: false);

    public void Execute() => RunTurn();

    public void RunTurn()
    {
        _pipe.BeginConsuming();
        try
        {
            TurnRunner.Run(this, ref _queue, ref _delivery, ref _batch, _budget);
        }
        finally
        {
            PipeBase<T>.EndConsuming();
        }
    }
}
