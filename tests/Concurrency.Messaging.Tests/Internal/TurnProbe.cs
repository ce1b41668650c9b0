namespace Concurrency.Messaging.Tests.Internal;

/// <summary>
/// A consumer run by the real <see cref="TurnRunner"/> over a queue the test holds, with an owner that records what the
/// runner did: the size of each turn, handler failures, the end. Its first turn waits for <see cref="Start"/>, so a test
/// can fill the queue first and know every turn's size. Two handlers running at once fail the test.
/// </summary>
internal sealed class TurnProbe<TQueue> : ITurn, ITurnProbe
    where TQueue : struct, ITurnQueue<long>
{
    private readonly int _budget;
    private readonly Action<long>? _handler;
    private readonly List<int> _turnSizes = []; // appended by each turn as it starts: turns never overlap while they deliver
    private readonly TaskCompletionSource _ended = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private Owner _owner;
    private TurnBatch<long> _batch = new();
    private int _started;     // 0 until Start: a schedule before it is held
    private int _held;        // 1 while a schedule waits for Start
    private int _delivering;  // Interlocked: handlers running now
    private long _handled;    // Interlocked
    private long _unhandled;  // Interlocked
    private long _countedHandled; // Interlocked: what the runner gave the owner's count
    private int _failures;    // Interlocked
    private bool _stopping;   // set by Stop: messages are counted off from then on

    public TurnProbe(TQueue queue, int budget, Action<long>? handler = null)
    {
        Queue = queue;
        _budget = budget;
        _handler = handler;
        _owner = new Owner(this);
    }

    /// <summary>The queue, used in place by the runner and the test.</summary>
    public TQueue Queue;

    public long Handled => Interlocked.Read(ref _handled);

    public long Unhandled => Interlocked.Read(ref _unhandled);

    public long CountedHandled => Interlocked.Read(ref _countedHandled);

    public int Failures => Volatile.Read(ref _failures);

    public Exception? QueueFailure { get; private set; }

    public Task Ended => _ended.Task;

    public int[] TurnSizes => [.. _turnSizes];

    /// <summary>After an enqueue outside the queue's lock: schedules the consumer if its flag says idle (see <see cref="IdleFlag"/>).</summary>
    public void Notify()
    {
        Interlocked.MemoryBarrier();
        if (Queue.TryClaimIdle())
        {
            Schedule();
        }
    }

    /// <summary>From now on the owner is stopping: the runner counts messages off instead of handing them over.</summary>
    public void Stop() => Volatile.Write(ref _stopping, true);

    /// <summary>Lets the first turn run (once).</summary>
    public void Start()
    {
        Volatile.Write(ref _started, 1);
        if (Interlocked.Exchange(ref _held, 0) == 1)
        {
            TurnRunner.Schedule(this, mayRunNext: false);
        }
    }

    public void Schedule()
    {
        if (Volatile.Read(ref _started) == 0)
        {
            Assert.Equal(0, Interlocked.Exchange(ref _held, 1)); // a second schedule while one is due is a double turn
            if (Volatile.Read(ref _started) == 0 || Interlocked.Exchange(ref _held, 0) == 0)
            {
                return;
            }
        }

        TurnRunner.Schedule(this, mayRunNext: false);
    }

    public void Execute() => RunTurn();

    public void RunTurn()
    {
        _turnSizes.Add(0);
        TurnRunner.Run(this, ref Queue, ref _owner, ref _batch, _budget);
    }

    private void Handle(long message)
    {
        Assert.Equal(1, Interlocked.Increment(ref _delivering));
        try
        {
            _turnSizes[^1]++;
            _handler?.Invoke(message);
            Interlocked.Increment(ref _handled);
        }
        finally
        {
            Interlocked.Decrement(ref _delivering);
        }
    }

    private readonly struct Owner(TurnProbe<TQueue> probe) : ITurnOwner<long>
    {
        public bool LooksBeforeIdle => true;

        public bool IsStopping => Volatile.Read(ref probe._stopping);

        public bool IsSuspended => false;

        public void Deliver(Slot<long>[] batch, ref int next, int end)
        {
            while (next < end && !IsStopping)
            {
                probe.Handle(batch[next++].Value);
            }
        }

        public void DeliverOne(in long message) => probe.Handle(message);

        public void Handled(int count) => Interlocked.Add(ref probe._countedHandled, count);

        public void Unhandled(Slot<long>[] batch, int next, int end) => Interlocked.Add(ref probe._unhandled, end - next);

        public void UnhandledOne(in long message) => Interlocked.Increment(ref probe._unhandled);

        public void Failed(Exception exception) => Interlocked.Increment(ref probe._failures);

        public void Suspended() => Assert.Fail("The probe never suspends.");

        public void Completed() => probe._ended.TrySetResult();

        public void QueueFailed(Exception exception)
        {
            probe.QueueFailure = exception;
            probe._ended.TrySetResult();
        }
    }
}

/// <summary>What a test reads of a <see cref="TurnProbe{TQueue}"/>, whatever its queue.</summary>
internal interface ITurnProbe
{
    Task Ended { get; }

    int[] TurnSizes { get; }

    long Handled { get; }

    long Unhandled { get; }

    long CountedHandled { get; }

    int Failures { get; }

    void Start();

    void Stop();
}
