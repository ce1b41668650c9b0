namespace Concurrency.Messaging.Pipes;

/// <summary>
/// One consumer of a pipe run as turns on the .NET thread pool (<see cref="PipeRunner.ThreadPool"/>), over any queue it can
/// take from without waiting. A turn handles up to its budget, then queues the next turn itself if there is more, or goes
/// idle; an idle consumer holds no thread and costs no CPU, and the next post (or the close) queues a turn again.
/// </summary>
/// <remarks>
/// <para>
/// At most one turn of a consumer is queued or running at a time (the state moves Idle → Scheduled only by compare-and-swap,
/// and only the running turn moves it back), so what a subclass keeps for its turns needs no lock.
/// </para>
/// <para>
/// The rule that loses no wake-up is Dekker's: a producer stores its message, then (after a full fence) reads the state; a
/// turn that found nothing stores Idle, then (after a full fence) looks at the queue again. Either the producer sees Idle and
/// schedules a turn, or the turn's second look sees the message and takes its turn back. Queues whose producers post with no
/// fence of their own (the ring) pay the fence in <see cref="Notify"/>: this runner is for pipes that are idle more than busy.
/// </para>
/// </remarks>
internal abstract class PooledConsumer<T> : IThreadPoolWorkItem
{
    private const int Idle = 0, Scheduled = 1, Exited = 2;

    private readonly PipeBase<T> _pipe;
    private readonly Action<T> _handler;
    private readonly int _budget;
    private PaddedState _state; // Idle, Scheduled or Exited (see the remarks); producers read it on every post, so it has a line of its own

    protected PooledConsumer(PipeBase<T> pipe, Action<T> handler, int budget)
    {
        _pipe = pipe;
        _handler = handler;
        _budget = budget;
    }

    /// <summary>
    /// Producer side, after a message was added to this consumer's queue, and the pipe, after the queue was closed: queues a
    /// turn if the consumer is idle. Any thread, any number at once; a busy consumer costs one fence and one read.
    /// </summary>
    public void Notify()
    {
        Interlocked.MemoryBarrier(); // the message (or the close) is visible before the state is read: see the remarks
        if (Volatile.Read(ref _state.Value) == Idle && Interlocked.CompareExchange(ref _state.Value, Scheduled, Idle) == Idle)
        {
            ThreadPool.UnsafeQueueUserWorkItem(this, preferLocal: false);
        }
    }

    /// <summary>
    /// For a queue several consumers share: queues a turn for the first idle one of <paramref name="consumers"/>. If all are
    /// busy, each will look at the queue again before it goes idle, so the message is still taken.
    /// </summary>
    public static void NotifyAny(PooledConsumer<T>[] consumers)
    {
        Interlocked.MemoryBarrier();
        foreach (var consumer in consumers)
        {
            if (Volatile.Read(ref consumer._state.Value) == Idle
                && Interlocked.CompareExchange(ref consumer._state.Value, Scheduled, Idle) == Idle)
            {
                ThreadPool.UnsafeQueueUserWorkItem(consumer, preferLocal: false);
                return;
            }
        }
    }

    /// <summary>
    /// After an accepted post: with one queue per consumer (broadcast, or a single consumer) every idle one needs a turn;
    /// consumers that share one queue need only the first idle one.
    /// </summary>
    public static void NotifyPosted(PooledConsumer<T>[] consumers, bool shareOneQueue)
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
    public static void NotifyAll(PooledConsumer<T>[] consumers)
    {
        foreach (var consumer in consumers)
        {
            consumer.Notify();
        }
    }

    /// <summary>
    /// The running turn only: handles what is waiting without waiting for more, at most <paramref name="left"/> messages,
    /// taking off <paramref name="left"/> what it handled (and freeing their room, for a bounded queue). Each message goes
    /// through <see cref="Deliver"/>, or is handled the way <see cref="PipeBase{T}.Deliver"/> does it.
    /// </summary>
    /// <returns><see cref="PooledTake.Taken"/> if it handled at least one; otherwise whether the queue is empty or done.</returns>
    protected abstract PooledTake Handle(ref int left);

    /// <summary>Gets the consumer's handler, for a <see cref="Handle"/> that delivers a batch in a loop of its own.</summary>
    protected Action<T> Handler => _handler;

    /// <summary>Hands one message to the handler, or counts it once the pipe is stopping (see <see cref="PipeBase{T}.Deliver"/>).</summary>
    protected void Deliver(T message) => _pipe.Deliver(_handler, message);

    /// <summary>
    /// After going idle: whether the queue has a message for this consumer or is closed, so a turn is due. Reads what only
    /// turns write; another turn can be running only if a producer scheduled it, and that turn then takes what is there.
    /// </summary>
    protected abstract bool HasWork();

    public void Execute()
    {
        _pipe.BeginConsuming();
        try
        {
            RunTurn();
        }
        finally
        {
            PipeBase<T>.EndConsuming();
        }
    }

    private void RunTurn()
    {
        var left = _budget;
        while (true)
        {
            if (left == 0)
            {
                // The budget is spent: yield the thread to other work and come back. The state stays Scheduled.
                ThreadPool.UnsafeQueueUserWorkItem(this, preferLocal: false);
                return;
            }

            PooledTake take;
            try
            {
                take = Handle(ref left);
            }
            catch (Exception queueFailure)
            {
                // Handlers' exceptions never get here (Deliver catches them): this is the queue itself failing. Thrown out of
                // a pool work item it would end the process; instead the pipe faults with it and this consumer exits.
                _pipe.FaultQueue(queueFailure);
                Exit();
                return;
            }

            switch (take)
            {
                case PooledTake.Taken:
                    break;
                case PooledTake.Completed:
                    Exit();
                    return;
                default:
                    if (IdleWait.LookBeforeIdle(static self => self.HasWork(), this))
                    {
                        break; // more came while this turn looked: still Scheduled, take it
                    }

                    Interlocked.Exchange(ref _state.Value, Idle); // a full fence: the look below cannot move above this store
                    if (!HasWork() || Interlocked.CompareExchange(ref _state.Value, Scheduled, Idle) != Idle)
                    {
                        return; // nothing came, or a producer saw Idle and queued the next turn
                    }

                    break;
            }
        }
    }

    /// <summary>The running turn's last act: the consumer never runs again and counts as exited.</summary>
    private void Exit()
    {
        Volatile.Write(ref _state.Value, Exited);
        _pipe.ConsumerExited();
    }
}
