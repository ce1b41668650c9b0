namespace Concurrency.Messaging.Grpc;

/// <summary>
/// Completes the callers of <see cref="PeerMode.Async"/> on the thread pool, a reply batch at a time: the listener hands
/// over the sends one batch of replies answered, and one work item completes them one after another, each caller's
/// continuation running inline on it. That costs one work item per batch where a task per send that runs its
/// continuation asynchronously costs one per message.
/// </summary>
/// <remarks>
/// <para>
/// One worker (a work item) delivers at a time. A continuation that blocks holds up the sends behind it, and one that
/// waits for one of them would wait forever; so the client's sweeper calls <see cref="CheckProgress"/> on its timer, and
/// when sends wait and the worker, once running, started no delivery since the last look, the worker is abandoned (it
/// leaves as soon as its blocked continuation returns) and a new one carries on, as the thread pool adds a thread when
/// its work items stop finishing. A blocking continuation thus delays the others by about two sweep periods, longer if
/// the thread pool itself is starved.
/// </para>
/// <para>
/// Every field is guarded by <see cref="_gate"/>, and so is <see cref="Worker.Abandoned"/> and <see cref="Worker.Running"/>;
/// a worker takes one send at a time under it and completes it outside it.
/// </para>
/// </remarks>
internal sealed class ReplyDelivery
{
    private readonly Lock _gate = new();
    private readonly Queue<PendingSend> _ready = new();
    private Worker? _active;             // the worker that delivers; null when the queue is empty and nobody runs
    private long _started;               // deliveries started, ever
    private long _seen = -1;             // _started at the sweeper's last look
    private EmptyPromise _drained;       // completed when _ready next becomes empty

    /// <summary>Queues settled sends for completion, starting a worker if none runs.</summary>
    public void Enqueue(List<PendingSend> sends)
    {
        Worker? start = null;
        lock (_gate)
        {
            foreach (var send in sends)
            {
                _ready.Enqueue(send);
            }

            if (_active is null && _ready.Count > 0)
            {
                start = _active = new Worker(this);
            }
        }

        if (start is not null)
        {
            ThreadPool.UnsafeQueueUserWorkItem(start, preferLocal: false);
        }
    }

    /// <summary>The sweeper: if sends wait and the running worker started none since the last call, replaces it.</summary>
    public void CheckProgress()
    {
        Worker? start = null;
        lock (_gate)
        {
            if (_ready.Count > 0 && _active is { Running: true } stuck && _started == _seen)
            {
                stuck.Abandoned = true;
                start = _active = new Worker(this);
            }

            _seen = _started;
        }

        if (start is not null)
        {
            ThreadPool.UnsafeQueueUserWorkItem(start, preferLocal: false);
        }
    }

    /// <summary>Finishes when every send handed over so far has been taken for delivery (a continuation may still be running).</summary>
    public Task WhenDrainedAsync()
    {
        lock (_gate)
        {
            return _drained.WhenEmpty(_ready.Count == 0);
        }
    }

    private void Run(Worker worker)
    {
        while (true)
        {
            PendingSend? send;
            TaskCompletionSource? drained = null;
            lock (_gate)
            {
                worker.Running = true;
                if (worker.Abandoned)
                {
                    return;
                }

                if (!_ready.TryDequeue(out send))
                {
                    _active = null;
                    return;
                }

                _started++;
                if (_ready.Count == 0)
                {
                    drained = _drained.Take();
                }
            }

            drained?.TrySetResult();

            // The caller's continuation runs here (an exception in it goes to the caller's own async method, not here).
            send.Deliver();
        }
    }

    /// <summary>One start of delivery on the thread pool; abandoned when a continuation it runs blocks too long.</summary>
    private sealed class Worker(ReplyDelivery delivery) : IThreadPoolWorkItem
    {
        public bool Abandoned { get; set; }

        public bool Running { get; set; }

        public void Execute() => delivery.Run(this);
    }
}
