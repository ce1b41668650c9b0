namespace Concurrency.Messaging.Linq;

/// <summary>The observable behind <see cref="ParallelObservable"/>: one window of N slots per subscription.</summary>
internal sealed class OrderedParallelObserveOn<TSource, TResult>(
    IObservable<TSource> source,
    Func<TSource, TResult>? selector,
    Func<TSource, CancellationToken, ValueTask<TResult>>? asyncSelector,
    int degree) : IObservable<TResult>
{
    private IObservable<TSource> Source { get; } = source;

    private Func<TSource, TResult>? Selector { get; } = selector;

    private Func<TSource, CancellationToken, ValueTask<TResult>>? AsyncSelector { get; } = asyncSelector;

    private int Degree { get; } = degree;

    public IDisposable Subscribe(IObserver<TResult> observer)
    {
        ArgumentNullException.ThrowIfNull(observer);
        var sink = new Sink(this, observer);
        sink.Run();
        return sink;
    }

    /// <summary>
    /// Element k gets sequence number k and, once started, window slot k % N; at most N are started and not yet emitted,
    /// so live sequence numbers never share a slot. Whoever finishes the element at the emission head becomes the single
    /// emitter and drains every consecutive finished slot, calling the observer outside the lock.
    /// </summary>
    private sealed class Sink(OrderedParallelObserveOn<TSource, TResult> parent, IObserver<TResult> observer) : IObserver<TSource>, IDisposable
    {
        private readonly Lock _gate = new();
        private readonly Slot[] _window = new Slot[parent.Degree];            // guarded by _gate
        private readonly Queue<(long Sequence, TSource Item)> _waiting = new(); // guarded by _gate: arrived while the window was full
        private readonly CancellationTokenSource _cancel = new();
        private long _nextSequence;     // guarded by _gate: the next source element's number
        private long _emitSequence;     // guarded by _gate: the next number to emit
        private int _inFlight;          // guarded by _gate: started and not yet emitted, at most N
        private bool _emitting;         // guarded by _gate: one thread at a time calls the observer
        private bool _sourceDone;       // guarded by _gate
        private Exception? _sourceError; // guarded by _gate
        private bool _stopped;          // guarded by _gate: terminated or disposed; nothing more is emitted
        private IDisposable? _upstream; // set once by Run; taken once (Interlocked) to dispose

        public void Run()
        {
            var upstream = parent.Source.Subscribe(this);
            if (Interlocked.CompareExchange(ref _upstream, upstream, null) is not null)
            {
                upstream.Dispose();
            }
        }

        public void OnNext(TSource value)
        {
            long sequence;
            lock (_gate)
            {
                if (_stopped || _sourceDone)
                {
                    return;
                }

                sequence = _nextSequence++;
                if (_inFlight == _window.Length)
                {
                    _waiting.Enqueue((sequence, value));
                    return;
                }

                _inFlight++;
            }

            Start(sequence, value);
        }

        public void OnError(Exception error)
        {
            lock (_gate)
            {
                if (_stopped || _sourceDone)
                {
                    return;
                }

                _sourceDone = true;
                _sourceError = error;
            }

            Drain();
        }

        public void OnCompleted()
        {
            lock (_gate)
            {
                if (_stopped || _sourceDone)
                {
                    return;
                }

                _sourceDone = true;
            }

            Drain();
        }

        public void Dispose()
        {
            lock (_gate)
            {
                _stopped = true;
                _waiting.Clear();
            }

            Interlocked.Exchange(ref _upstream, Disposed.Instance)?.Dispose();
            _cancel.Cancel();
        }

        private void Start(long sequence, TSource item)
            => ThreadPool.UnsafeQueueUserWorkItem(new WorkItem(this, sequence, item), preferLocal: false);

        private void Execute(long sequence, TSource item)
        {
            if (parent.Selector is { } selector)
            {
                TResult result;
                try
                {
                    result = selector(item);
                }
                catch (Exception ex)
                {
                    Finish(sequence, default!, ex);
                    return;
                }

                Finish(sequence, result, null);
                return;
            }

            _ = ExecuteAsync(sequence, item, parent.AsyncSelector!);
        }

        private async Task ExecuteAsync(long sequence, TSource item, Func<TSource, CancellationToken, ValueTask<TResult>> selector)
        {
            TResult result;
            try
            {
                result = await selector(item, _cancel.Token).ConfigureAwait(false);
            }
            catch (Exception ex)
            {
                Finish(sequence, default!, ex);
                return;
            }

            Finish(sequence, result, null);
        }

        private void Finish(long sequence, TResult result, Exception? error)
        {
            lock (_gate)
            {
                if (_stopped)
                {
                    return;
                }

                _window[sequence % _window.Length] = new Slot(true, result, error);
            }

            Drain();
        }

        /// <summary>Becomes the emitter unless another thread is; emits consecutive finished slots, then the terminal call if due.</summary>
        private void Drain()
        {
            List<(long, TSource)>? toStart = null;
            lock (_gate)
            {
                if (_emitting || _stopped)
                {
                    return;
                }

                _emitting = true;
            }

            while (true)
            {
                Slot slot;
                var terminal = false;
                lock (_gate)
                {
                    ref var head = ref _window[_emitSequence % _window.Length];
                    if (_stopped)
                    {
                        _emitting = false;
                        return;
                    }

                    if (!head.Done)
                    {
                        if (_sourceDone && _inFlight == 0)
                        {
                            _stopped = true;
                            terminal = true;
                        }
                        else
                        {
                            _emitting = false;
                        }

                        slot = default;
                    }
                    else
                    {
                        slot = head;
                        head = default;
                        _emitSequence++;
                        _inFlight--;
                        if (slot.Error is not null)
                        {
                            _stopped = true;
                            _waiting.Clear();
                        }
                        else if (_waiting.Count > 0)
                        {
                            _inFlight++;
                            (toStart ??= []).Add(_waiting.Dequeue());
                        }
                    }
                }

                if (toStart is { Count: > 0 })
                {
                    foreach (var (sequence, item) in toStart)
                    {
                        Start(sequence, item);
                    }

                    toStart.Clear();
                }

                if (terminal)
                {
                    Terminate(_sourceError);
                    return;
                }

                if (!slot.Done)
                {
                    return;
                }

                if (slot.Error is not null)
                {
                    Terminate(slot.Error);
                    return;
                }

                observer.OnNext(slot.Result);
            }
        }

        private void Terminate(Exception? error)
        {
            Interlocked.Exchange(ref _upstream, Disposed.Instance)?.Dispose();
            _cancel.Cancel();
            if (error is null)
            {
                observer.OnCompleted();
            }
            else
            {
                observer.OnError(error);
            }
        }

        private readonly record struct Slot(bool Done, TResult Result, Exception? Error);

        private sealed class WorkItem(Sink sink, long sequence, TSource item) : IThreadPoolWorkItem
        {
            public void Execute() => sink.Execute(sequence, item);
        }
    }

    private sealed class Disposed : IDisposable
    {
        public static readonly Disposed Instance = new();

        public void Dispose()
        {
        }
    }
}
