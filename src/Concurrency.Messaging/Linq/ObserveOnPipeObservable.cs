using System.Reactive.Disposables;
using System.Runtime.ExceptionServices;
using Concurrency.Messaging.Pipes;

namespace Concurrency.Messaging.Linq;

/// <summary>The observable behind <see cref="PipeObservable"/>: one pipe and one consumer per subscription.</summary>
internal sealed class ObserveOnPipeObservable<T>(IObservable<T> source, PipeKind kind, PipeOptions options) : IObservable<T>
{
    /// <summary>
    /// For tests: called on the subscribing thread with each subscription's delivery task, which finishes once the pipe's
    /// consumer has exited and the observer's terminal call, if there is one, has returned.
    /// </summary>
    internal Action<Task>? DeliveryStarted { get; set; }

    public IDisposable Subscribe(IObserver<T> observer)
    {
        ArgumentNullException.ThrowIfNull(observer);
        var sink = new Sink(observer, kind, options);
        DeliveryStarted?.Invoke(sink.Delivery);
        sink.Run(source);
        return sink;
    }

    /// <summary>
    /// Upstream, the sink is the pipe's single producer (the Rx grammar serializes OnNext, OnError and OnCompleted);
    /// downstream, the pipe's consumer calls the observer's OnNext, and the pipe's completion delivers the terminal call.
    /// </summary>
    private sealed class Sink : IObserver<T>, IDisposable
    {
        private readonly IObserver<T> _observer;
        private readonly CancellationTokenSource _abort = new();
        private readonly IPipe<T> _pipe;
        private readonly RingPipe<T>? _ring; // the same pipe when it is a ring: posted to directly, without the interface call
        private IDisposable? _upstream;   // set once by Run; disposed by Dispose or after a downstream fault (Interlocked)
        private Exception? _sourceError;  // written by the producer before it completes the pipe; read after Completion

        public Sink(IObserver<T> observer, PipeKind kind, PipeOptions options)
        {
            _observer = observer;
            _pipe = Pipe.Create<T>(kind, observer.OnNext, options with { AbortToken = _abort.Token });
            _ring = _pipe as RingPipe<T>;
            Delivery = _pipe.Completion.ContinueWith(
                static (completion, state) => ((Sink)state!).OnPipeFinished(completion),
                this,
                CancellationToken.None,
                TaskContinuationOptions.ExecuteSynchronously,
                TaskScheduler.Default);
        }

        /// <summary>Gets a task that finishes once the consumer has exited and the terminal call, if any, has returned.</summary>
        public Task Delivery { get; }

        public void Run(IObservable<T> source)
        {
            IDisposable upstream;
            try
            {
                upstream = source.Subscribe(this);
            }
            catch
            {
                // The caller gets no subscription to dispose: abort the pipe here, or its consumer waits forever.
                Dispose();
                throw;
            }

            if (Interlocked.CompareExchange(ref _upstream, upstream, null) is not null)
            {
                // Disposed (or faulted) while subscribing.
                upstream.Dispose();
            }
        }

        public void OnNext(T value)
        {
            if (_ring is null || !_ring.TryPostInline(value))
            {
                PostWaiting(value);
            }
        }

        private void PostWaiting(T value)
        {
            try
            {
                _pipe.Post(value, _abort.Token);
            }
            catch (OperationCanceledException)
            {
                // Disposed while waiting for room: delivery has stopped.
            }
            catch (PipeClosedException)
            {
                // Disposed, or the downstream observer threw: delivery has stopped.
            }
        }

        public void OnError(Exception error)
        {
            _sourceError = error;
            _pipe.TryComplete();
        }

        public void OnCompleted() => _pipe.TryComplete();

        public void Dispose()
        {
            DisposeUpstream();
            _abort.Cancel();
        }

        private void DisposeUpstream()
            => Interlocked.Exchange(ref _upstream, Disposable.Empty)?.Dispose();

        private void OnPipeFinished(Task completion)
        {
            if (completion.IsCanceled)
            {
                return; // disposed: no more notifications
            }

            try
            {
                if (completion.Exception?.InnerException is MessageHandlerException { InnerException: { } downstreamFault })
                {
                    DisposeUpstream();
                    _observer.OnError(downstreamFault);
                }
                else if (_sourceError is { } error)
                {
                    _observer.OnError(error);
                }
                else
                {
                    _observer.OnCompleted();
                }
            }
            catch (Exception ex)
            {
                // An observer whose terminal call throws (Rx's default onError rethrows) crashes the process under Rx's
                // ObserveOn. Thrown here, it would vanish into this continuation's task; throw it on a pool thread instead.
                var fault = ExceptionDispatchInfo.Capture(ex);
                ThreadPool.UnsafeQueueUserWorkItem(static fault => fault.Throw(), fault, preferLocal: false);
            }
        }
    }
}
