using Concurrency.Messaging.Internal;

namespace Concurrency.Messaging.Pipes;

/// <summary>
/// One consumer of a pipe over its side of the queue (<typeparamref name="TQueue"/>, held in place), run by the
/// <see cref="TurnRunner"/> the way <see cref="PipeOptions.Runner"/> says: as turns on the .NET thread pool
/// (<see cref="PipeRunner.ThreadPool"/>), holding no thread while idle, or on a thread of its own that parks while idle
/// (<see cref="PipeRunner.DedicatedThread"/>, see <see cref="ThreadWait"/>). Either way it starts idle, and a post that
/// finds it idle schedules it, through <see cref="Notify"/> for a queue with an <see cref="IdleFlag"/>, or from the queue's
/// own post for one that marks its consumer idle under its lock; to schedule is to queue a turn, or to wake the parked
/// thread. Delivery, counting and faults are the runner's (<see cref="TurnDelivery"/>) over <see cref="PipeDelivery{T}"/>.
/// </summary>
internal sealed class PipeConsumer<T, TQueue> : ITurn
    where TQueue : struct, ITurnQueue<T>
{
    private readonly PipeBase<T> _pipe;
    private readonly int _budget;        // pooled: PipeOptions.MessagesPerTurn
    private readonly Thread? _thread;    // dedicated: the consumer's own thread, started by Start
    private PipeDelivery<T> _delivery;
    private TQueue _queue;               // used in place: the running turn (or the thread) takes from it, producers claim it
    private TurnBatch<T> _batch = new(); // the running turn (or the thread) only
    private ThreadWait _wait;            // dedicated: how the thread waits; Wake is the producers', the rest the thread's

    /// <param name="pipe">The pipe.</param>
    /// <param name="consumer">The consumer's number in the pipe, which its handled count goes under.</param>
    /// <param name="queue">Its side of the queue.</param>
    /// <param name="handler">Its handler.</param>
    /// <param name="options">The pipe's options: the runner, and a pooled consumer's budget per turn.</param>
    /// <param name="pause">A dedicated consumer's pause between looks at an empty queue, in <see cref="Thread.SpinWait(int)"/> iterations.</param>
    /// <param name="spin">Whether a dedicated consumer's wait may pause (see <see cref="IdleWait.SpinsFor"/>).</param>
    public PipeConsumer(PipeBase<T> pipe, int consumer, TQueue queue, Action<T> handler, PipeOptions options, int pause, bool spin)
    {
        _pipe = pipe;
        _queue = queue;
        _delivery = new PipeDelivery<T>(pipe, consumer, handler);
        _budget = options.MessagesPerTurn;
        if (Pipe.RunnerOf(pipe.Kind, options) == PipeRunner.DedicatedThread)
        {
            _wait = new ThreadWait(pause, spin);
            _thread = new Thread(RunOnThread) { IsBackground = true, Name = $"{pipe.Kind} consumer {consumer}" };
        }
    }

    /// <summary>Gets whether the consumer's own thread is parked: idle and costing no CPU (for tests; a pooled consumer never is).</summary>
    public bool IsParked => _wait.IsParked;

    /// <summary>This consumer's side of the queue, in place: for the closer's calls a queue of its own kind offers.</summary>
    public ref TQueue Queue => ref _queue;

    /// <summary>Starts a dedicated consumer's thread, which parks until the consumer is first scheduled. Once, after the pipe registered its consumers.</summary>
    public void Start() => _thread?.Start();

    /// <summary>
    /// Producer side, after a message was added to this consumer's queue, and the pipe, after the queue was closed: schedules
    /// the consumer if it is idle. Any thread, any number at once; a busy consumer costs one fence and one read.
    /// </summary>
    public void Notify() => TurnRunner.WakeIfIdle<T, TQueue>(this, ref _queue, mayRunNext: false);

    /// <summary>
    /// For a queue several consumers share: schedules the first idle one of <paramref name="consumers"/>. If all are busy,
    /// each looks at the queue again before it goes idle, so the message is still taken.
    /// </summary>
    public static void NotifyAny(PipeConsumer<T, TQueue>[] consumers)
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
    /// After an accepted post: with one queue per consumer (broadcast, or a single consumer) every idle one needs scheduling;
    /// consumers that share one queue need only the first idle one.
    /// </summary>
    public static void NotifyPosted(PipeConsumer<T, TQueue>[] consumers, bool shareOneQueue)
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

    /// <summary>Schedules every idle one of <paramref name="consumers"/>: after the close, so each finds the end.</summary>
    public static void NotifyAll(PipeConsumer<T, TQueue>[] consumers)
    {
        foreach (var consumer in consumers)
        {
            consumer.Notify();
        }
    }

    /// <summary>Called once per time the consumer goes from idle to scheduled (the queue decides): a turn, or a wake-up.</summary>
    public void Schedule()
    {
        if (_thread is null)
        {
            TurnRunner.Schedule(this, mayRunNext: false);
        }
        else
        {
            _wait.Wake();
        }
    }

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

    /// <summary>The dedicated consumer's thread, for the pipe's whole life: its handlers are this pipe's until it ends.</summary>
    private void RunOnThread()
    {
        _pipe.BeginConsuming();
        TurnRunner.RunOnThread(ref _queue, ref _delivery, ref _batch, ThreadWait.CountEvery, ref _wait);
    }
}
