using System.Reactive.Disposables;

namespace Concurrency.Messaging.Linq;

/// <summary>
/// One subscription of the ordered parallel ObserveOn.
/// </summary>
/// <remarks>
/// Element k gets sequence number k. At most N elements are started and not yet taken for emission
/// (<c>_started - _emitted &lt;= N</c>), so element k's outcome can live in window slot k % N without a collision.
/// Elements arriving while the window is full wait in a FIFO; each slot freed by emission starts the oldest one.
/// Whoever stores the outcome of the element at the emission head, while nobody else emits, becomes the single emitter:
/// it takes consecutive finished outcomes out of the window one at a time under the gate and calls the observer outside
/// it, then gives the role up when the head is unfinished. So observer calls never overlap and never follow the terminal
/// one, and a slow observer does not hold the gate. Worker objects are pooled: a worker that finishes an element and
/// finds the window full or nothing waiting goes back to <c>_idle</c> instead of blocking.
/// </remarks>
internal sealed class OrderedParallelSink<TSource, TResult> : IObserver<TSource>, IDisposable
{
    private readonly IObserver<TResult> _observer;
    private readonly CancellationTokenSource _cancel = new(); // thread-safe itself: cancelled on dispose or error
    private readonly Lock _gate = new();

    private readonly Outcome[] _window;                      // _gate: slot k % N holds element k's outcome until taken for emission
    private readonly Queue<TSource> _waiting = new();        // _gate: arrived while the window was full; its head is element _started
    private readonly Stack<OrderedParallelWorker<TSource, TResult>> _idle = new(); // _gate: workers not queued or running
    private long _started;           // _gate: elements handed to a worker = the next one's sequence number
    private long _emitted;           // _gate: elements taken out of the window for emission = the head's sequence number
    private bool _emitting;          // _gate: some thread holds the emitter role; only that thread calls the observer
    private bool _sourceDone;        // _gate: the source has completed or failed
    private Exception? _sourceError; // _gate: the source's error, delivered after every element before it
    private bool _stopped;           // _gate: disposed or terminated; nothing more is started or emitted
    private IDisposable? _upstream;  // set once by Run, swapped for Disposable.Empty (Interlocked) to dispose exactly once

    public OrderedParallelSink(
        IObserver<TResult> observer,
        Func<TSource, TResult>? selector,
        Func<TSource, CancellationToken, ValueTask<TResult>>? asyncSelector,
        int degree)
    {
        _observer = observer;
        Selector = selector;
        AsyncSelector = asyncSelector;
        _window = new Outcome[degree];
    }

    private enum Step
    {
        Idle,
        Emit,
        Terminate,
    }

    /// <summary>Gets the selector the workers run, or null when they run <see cref="AsyncSelector"/>.</summary>
    internal Func<TSource, TResult>? Selector { get; }

    /// <summary>Gets the asynchronous selector the workers run, or null when they run <see cref="Selector"/>.</summary>
    internal Func<TSource, CancellationToken, ValueTask<TResult>>? AsyncSelector { get; }

    /// <summary>Gets the token the asynchronous selector is given: cancelled on dispose or error.</summary>
    internal CancellationToken Cancellation => _cancel.Token;

    public void Run(IObservable<TSource> source)
    {
        var upstream = source.Subscribe(this);
        if (Interlocked.CompareExchange(ref _upstream, upstream, null) is not null)
        {
            upstream.Dispose(); // disposed or terminated while subscribing
        }
    }

    /// <summary>Never blocks: the element starts now if the window has room, else it waits in the FIFO.</summary>
    public void OnNext(TSource value)
    {
        OrderedParallelWorker<TSource, TResult>? worker;
        lock (_gate)
        {
            if (_stopped || _sourceDone)
            {
                return;
            }

            _waiting.Enqueue(value);
            worker = StartWaiting();
        }

        Queue(worker);
    }

    public void OnError(Exception error) => OnSourceDone(error);

    public void OnCompleted() => OnSourceDone(null);

    public void Dispose()
    {
        lock (_gate)
        {
            Stop();
        }

        DisposeUpstream();
        _cancel.Cancel();
    }

    /// <summary>
    /// Read under the gate, for tests: elements handed to a worker, elements taken for emission, and outcomes stored in the
    /// window that are not taken yet.
    /// </summary>
    internal (long Started, long Emitted, int Stored) Progress
    {
        get
        {
            lock (_gate)
            {
                return (_started, _emitted, _window.Count(outcome => outcome.Done));
            }
        }
    }

    /// <summary>
    /// Called by <paramref name="worker"/> with its element's outcome. Returns <see langword="true"/> when the worker has
    /// been given another element; otherwise it is idle again and its caller must not touch it.
    /// </summary>
    internal bool Complete(OrderedParallelWorker<TSource, TResult> worker, TResult result, Exception? error)
    {
        Step step;
        TResult value;
        Exception? terminal;
        bool more;
        lock (_gate)
        {
            worker.Item = default!;
            if (_stopped)
            {
                _idle.Push(worker);
                return false;
            }

            _window[worker.Sequence % _window.Length] = new Outcome(true, result, error);
            if (_emitting || worker.Sequence != _emitted)
            {
                return TakeNext(worker);
            }

            _emitting = true;
            step = TakeHead(out value, out terminal);
            more = TakeNext(worker); // the slot just freed goes to this worker, not to a newly queued one
        }

        Deliver(step, value, terminal);
        return more;
    }

    private void OnSourceDone(Exception? error)
    {
        Step step;
        TResult value;
        Exception? terminal;
        lock (_gate)
        {
            if (_stopped || _sourceDone)
            {
                return;
            }

            _sourceDone = true;
            _sourceError = error;
            if (_emitting)
            {
                return; // the emitter finishes once it runs out of results
            }

            _emitting = true;
            step = TakeHead(out value, out terminal);
        }

        Deliver(step, value, terminal);
    }

    /// <summary>The emitter's loop, outside the gate: emit, take the next head, until idle or terminal.</summary>
    private void Deliver(Step step, TResult value, Exception? terminal)
    {
        while (step == Step.Emit)
        {
            try
            {
                _observer.OnNext(value);
            }
            catch (Exception ex)
            {
                // The observer failed: like the pipe operators, stop the source and report that error to it.
                lock (_gate)
                {
                    Stop();
                }

                Terminate(ex);
                return;
            }

            OrderedParallelWorker<TSource, TResult>? worker;
            lock (_gate)
            {
                step = TakeHead(out value, out terminal);
                worker = step == Step.Emit ? StartWaiting() : null;
            }

            Queue(worker);
        }

        if (step == Step.Terminate)
        {
            Terminate(terminal);
        }
    }

    /// <summary>Under the gate, by the emitter: takes the head's outcome, or finds the end, or gives up the role.</summary>
    private Step TakeHead(out TResult value, out Exception? terminal)
    {
        value = default!;
        terminal = null;
        if (_stopped)
        {
            return Step.Idle;
        }

        ref var head = ref _window[_emitted % _window.Length];
        if (head.Done)
        {
            var outcome = head;
            head = default;
            if (outcome.Error is not null)
            {
                terminal = outcome.Error;
                Stop();
                return Step.Terminate;
            }

            value = outcome.Result;
            _emitted++;
            return Step.Emit;
        }

        // Nothing started is left unemitted, and so nothing waits either (the FIFO only fills while the window is full).
        if (_sourceDone && _started == _emitted)
        {
            terminal = _sourceError;
            Stop();
            return Step.Terminate;
        }

        _emitting = false;
        return Step.Idle;
    }

    /// <summary>Under the gate: hands the oldest waiting element to <paramref name="worker"/> if the window has room, else idles it.</summary>
    private bool TakeNext(OrderedParallelWorker<TSource, TResult> worker)
    {
        if (_waiting.Count == 0 || _started - _emitted == _window.Length)
        {
            _idle.Push(worker);
            return false;
        }

        worker.Sequence = _started++;
        worker.Item = _waiting.Dequeue();
        return true;
    }

    /// <summary>Under the gate: a worker for the oldest waiting element if the window has room; the caller queues it.</summary>
    private OrderedParallelWorker<TSource, TResult>? StartWaiting()
    {
        if (_waiting.Count == 0 || _started - _emitted == _window.Length)
        {
            return null;
        }

        if (!_idle.TryPop(out var worker))
        {
            worker = new OrderedParallelWorker<TSource, TResult>(this);
        }

        worker.Sequence = _started++;
        worker.Item = _waiting.Dequeue();
        return worker;
    }

    /// <summary>Under the gate: nothing more starts or is emitted; queued elements and unemitted results are dropped.</summary>
    private void Stop()
    {
        _stopped = true;
        _waiting.Clear();
        Array.Clear(_window);
    }

    /// <summary>By the emitter, after <see cref="Stop"/>: the one terminal call.</summary>
    private void Terminate(Exception? error)
    {
        if (error is null)
        {
            _observer.OnCompleted();
            return;
        }

        DisposeUpstream();
        _cancel.Cancel();
        _observer.OnError(error);
    }

    private void DisposeUpstream() => Interlocked.Exchange(ref _upstream, Disposable.Empty)?.Dispose();

    private static void Queue(OrderedParallelWorker<TSource, TResult>? worker)
    {
        if (worker is not null)
        {
            ThreadPool.UnsafeQueueUserWorkItem(worker, preferLocal: false);
        }
    }

    private readonly record struct Outcome(bool Done, TResult Result, Exception? Error);
}
