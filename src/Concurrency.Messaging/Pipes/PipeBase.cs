using System.Diagnostics;
using Concurrency.Messaging.Internal;

namespace Concurrency.Messaging.Pipes;

/// <summary>
/// The lifecycle every pipe shares: closing once, faulting on the first handler exception, aborting,
/// counting what was dropped or left unhandled, and finishing <see cref="Completion"/> when the last consumer exits.
/// Implementations own their queues and make "closed" atomic with their own post path. Its counts are the pipes'
/// instruments (see <see cref="PipeInstruments"/>).
/// </summary>
internal abstract class PipeBase<T> : IPipe<T>, IPipeCounts
{
    private readonly TaskCompletionSource _completion = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly CancellationToken _abortToken;
    private CancellationTokenRegistration _abortRegistration; // set once by StartConsumers, disposed by the last consumer
    private const int Open = 0, Closing = 1, Closed = 2;

    private int _closed;            // Open → Closing once (Interlocked: by TryComplete, a handler fault or an abort) → Closed after Close()
    private int _stopping;          // 0 → 1 once a handler faulted or the pipe was aborted: consumers count instead of handle
    private int _aborted;           // 0 → 1 once (Interlocked) by the abort token
    private Exception? _fault;      // the first handler exception, or the queue's failure (Interlocked.CompareExchange)
    private int _queueFailed;       // 0 → 1 once (Interlocked) when the first fault is the queue's own, not a handler's
    private long _unhandled;        // Interlocked: deliveries accepted but never handled
    private long _dropped;          // Interlocked: messages a full mode dropped
    private int _liveConsumers;     // Interlocked: the last consumer out finishes Completion
    private PaddedCount[] _handled = []; // consumer i's handled count at [i]: written by consumer i only (CountHandled), read by anyone (Volatile)

    [ThreadStatic]
    private static object? t_consuming; // the pipe whose handler this thread is running, if any: a post from it must not wait

    protected PipeBase(PipeKind kind, PipeOptions options)
    {
        Kind = kind;
        _abortToken = options.AbortToken;
        PipeInstruments.Live.Add(this);
    }

    public PipeKind Kind { get; }

    public Task Completion => _completion.Task;

    public long DroppedCount => Interlocked.Read(ref _dropped);

    public long UnhandledCount => Interlocked.Read(ref _unhandled);

    /// <summary>Gets how many messages the consumers handed to their handlers and saw return, all consumers together.</summary>
    public long HandledCount
    {
        get
        {
            long sum = 0;
            foreach (ref var count in _handled.AsSpan())
            {
                sum += Volatile.Read(ref count.Value);
            }

            return sum;
        }
    }

    /// <summary>Gets whether consumers must stop handling and only count what is left (fault or abort).</summary>
    protected internal bool IsStopping => Volatile.Read(ref _stopping) != 0;

    public abstract bool TryPost(T message);

    /// <summary>
    /// Unbounded pipes: a token already cancelled is refused first, as every post does; then a refused post means the pipe
    /// is closed. Bounded pipes override to wait for room.
    /// </summary>
    public virtual void Post(T message, CancellationToken cancellationToken = default)
    {
        cancellationToken.ThrowIfCancellationRequested();
        if (!TryPost(message))
        {
            throw new PipeClosedException();
        }
    }

    /// <summary>Unbounded pipes: a refused post means the pipe is closed. Bounded pipes override to wait for room.</summary>
    public virtual ValueTask PostAsync(T message, CancellationToken cancellationToken = default)
    {
        if (cancellationToken.IsCancellationRequested)
        {
            return ValueTask.FromCanceled(cancellationToken);
        }

        return TryPost(message) ? default : ValueTask.FromException(new PipeClosedException());
    }

    public bool TryComplete()
    {
        if (TryClose())
        {
            return true;
        }

        // Linearizability: a caller told "already completed" must find the pipe closed, so that its own next post is
        // refused. The winner may still be inside Close(), which is short and never blocks; wait for it.
        var spinner = default(SpinWait);
        while (Volatile.Read(ref _closed) != Closed)
        {
            spinner.SpinOnce();
        }

        return false;
    }

    public void Complete()
    {
        if (!TryComplete())
        {
            throw new InvalidOperationException("The pipe was already completed, faulted or aborted.");
        }
    }

    public async ValueTask DisposeAsync()
    {
        TryComplete();
        await Completion.ConfigureAwait(ConfigureAwaitOptions.SuppressThrowing);
    }

    /// <summary>
    /// Stops accepting posts, atomically with the implementation's post path, and wakes every waiting consumer and producer.
    /// Called exactly once.
    /// </summary>
    protected abstract void Close();

    /// <summary>
    /// Registers the abort token and the consumer count; call once, before any consumer can exit, and after everything
    /// <see cref="Close"/> touches is in place: a token that is already cancelled closes the pipe during this call.
    /// </summary>
    protected void StartConsumers(int count)
    {
        Debug.Assert(_handled.Length == 0, "The consumers start once.");
        _handled = new PaddedCount[count]; // before any consumer can run: the first post or an abort comes after this
        _liveConsumers = count;
        if (_abortToken.CanBeCanceled)
        {
            _abortRegistration = _abortToken.UnsafeRegister(static state => ((PipeBase<T>)state!).Abort(), this);
        }
    }

    /// <summary>
    /// Makes consumer i over <paramref name="queueOf"/>(i) with handler i, run as the options ask (see
    /// <see cref="PipeConsumer{T, TQueue}"/>); none runs before <see cref="StartConsumers{TQueue}(PipeConsumer{T, TQueue}[])"/>.
    /// </summary>
    /// <param name="options">The pipe's options: the runner, a pooled consumer's budget.</param>
    /// <param name="handlers">One handler per consumer.</param>
    /// <param name="queueOf">Consumer i's side of the queue.</param>
    /// <param name="pause">A dedicated consumer's pause between looks at an empty queue (see <see cref="IdleWait.Wait"/>).</param>
    /// <param name="spin">Whether a dedicated consumer's wait may pause (see <see cref="IdleWait.SpinsFor"/>).</param>
    protected PipeConsumer<T, TQueue>[] CreateConsumers<TQueue>(PipeOptions options, Action<T>[] handlers, Func<int, TQueue> queueOf, int pause, bool spin)
        where TQueue : struct, ITurnQueue<T>
    {
        var consumers = new PipeConsumer<T, TQueue>[handlers.Length];
        for (var i = 0; i < consumers.Length; i++)
        {
            consumers[i] = new PipeConsumer<T, TQueue>(this, i, queueOf(i), handlers[i], options, pause, spin);
        }

        return consumers;
    }

    /// <summary>
    /// Registers the consumers (see <see cref="StartConsumers(int)"/>) and starts the dedicated ones' threads; each starts
    /// idle and runs once a post or the close schedules it. Call once, with the consumers already where posts and
    /// <see cref="Close"/> find them: a token that is already cancelled closes the pipe during this call, and that close
    /// must find the consumers to schedule.
    /// </summary>
    protected void StartConsumers<TQueue>(PipeConsumer<T, TQueue>[] consumers)
        where TQueue : struct, ITurnQueue<T>
    {
        StartConsumers(consumers.Length);
        foreach (var consumer in consumers)
        {
            consumer.Start();
        }
    }

    /// <summary>
    /// Marks the calling thread as running this pipe's handlers until <see cref="EndConsuming"/>, for consumers that run on
    /// a shared thread (a pool turn, a scheduler). A dedicated consumer's thread is marked for its whole life.
    /// </summary>
    protected internal void BeginConsuming() => t_consuming = this;

    protected internal static void EndConsuming() => t_consuming = null;

    /// <summary>
    /// Called before a post waits for room: a handler of this pipe that posts into it while it is full would wait for
    /// itself to make room, forever.
    /// </summary>
    /// <exception cref="InvalidOperationException">The calling thread is running one of this pipe's handlers.</exception>
    protected void ThrowIfWaitingOnItself()
    {
        if (ReferenceEquals(t_consuming, this))
        {
            throw new InvalidOperationException(
                "A handler posted into its own pipe while the pipe was full: waiting for room would wait for this handler to "
                + "return, forever. Post with TryPost from a handler, or give the pipe more room.");
        }
    }

    /// <summary>Records a handler's exception; the first one wins. The pipe closes and consumers start counting.</summary>
    protected internal void Fault(Exception exception)
    {
        Interlocked.CompareExchange(ref _fault, exception, null);
        Stop();
    }

    /// <summary>
    /// Consumer <paramref name="consumer"/> only: counts messages its handler returned from. A plain add on the consumer's
    /// own line, since one thread (or one turn at a time) runs each consumer; a batch's consumer adds once per batch.
    /// </summary>
    protected internal void CountHandled(int consumer, long count)
    {
        ref var handled = ref _handled[consumer].Value;
        Volatile.Write(ref handled, handled + count);
    }

    protected internal void CountUnhandled(long count)
    {
        if (count > 0)
        {
            Interlocked.Add(ref _unhandled, count);
        }
    }

    protected void CountDropped() => Interlocked.Increment(ref _dropped);

    /// <summary>
    /// Records that the queue itself threw (not a handler), if no fault came first, and stops the pipe. The pipe completes
    /// with an <see cref="InvalidOperationException"/> that says so, the queue's exception inside it: how many accepted
    /// messages the broken queue still held cannot be known, so no count is claimed.
    /// </summary>
    protected internal void FaultQueue(Exception exception)
    {
        var failure = new InvalidOperationException(
            "The pipe's queue failed (the queue itself threw, not a handler); accepted messages it still held may not have been handled. See the inner exception.",
            exception);
        if (Interlocked.CompareExchange(ref _fault, failure, null) is null)
        {
            Interlocked.Exchange(ref _queueFailed, 1);
        }

        Stop();
    }

    /// <summary>Each consumer calls this exactly once, after it has drained (or counted) everything it will ever see.</summary>
    protected internal void ConsumerExited()
    {
        if (Interlocked.Decrement(ref _liveConsumers) != 0)
        {
            return;
        }

        _abortRegistration.Dispose();
        PipeInstruments.Retire(this); // every count is final: no consumer runs, and the closed pipe accepts nothing
        var fault = Volatile.Read(ref _fault);
        if (fault is not null)
        {
            _completion.TrySetException(Volatile.Read(ref _queueFailed) != 0 ? fault : new MessageHandlerException(fault, UnhandledCount));
        }
        else if (Volatile.Read(ref _aborted) != 0)
        {
            _completion.TrySetCanceled(_abortToken);
        }
        else
        {
            _completion.TrySetResult();
        }
    }

    private void Abort()
    {
        Interlocked.Exchange(ref _aborted, 1);
        Stop();
    }

    private void Stop()
    {
        Volatile.Write(ref _stopping, 1);

        // A consumer parks only while the pipe is open, so if it was already closed nobody needs waking:
        // every consumer is draining and reads IsStopping before each message.
        TryClose();
    }

    private bool TryClose()
    {
        if (Interlocked.CompareExchange(ref _closed, Closing, Open) != Open)
        {
            return false;
        }

        Close();
        Volatile.Write(ref _closed, Closed);
        return true;
    }
}
