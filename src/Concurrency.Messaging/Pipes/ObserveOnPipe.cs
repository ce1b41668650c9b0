using System.Reactive.Concurrency;
using System.Reactive.Linq;
using System.Reactive.Subjects;
using Concurrency.Messaging.Internal;

namespace Concurrency.Messaging.Pipes;

/// <summary>
/// The baseline: an Rx <see cref="Subject{T}"/> observed on a scheduler, one subscription per consumer (broadcast). Rx's
/// ObserveOn runs each subscription on a long-running thread of the scheduler's (<see cref="PipeRunner.DedicatedThread"/>),
/// or, with the long-running optimization disabled, in pool work items (<see cref="PipeRunner.ThreadPool"/>).
/// Posts go through a monitor, which serializes concurrent producers (the Rx grammar forbids overlapping OnNext) and makes
/// closing atomic with posting. Fault and abort complete the subject; consumers count what is still queued instead of handling it.
/// </summary>
internal sealed class ObserveOnPipe<T> : PipeBase<T>
{
    private readonly Lock _gate = new();
    private readonly Subject<T> _subject = new();
    private bool _accepting = true; // guarded by _gate

    public ObserveOnPipe(IReadOnlyList<Action<T>> handlers, PipeOptions options)
        : base(PipeKind.ObserveOn, options)
    {
        var pooled = Pipe.RunnerOf(PipeKind.ObserveOn, options) == PipeRunner.ThreadPool;
        StartConsumers(handlers.Count);
        for (var i = 0; i < handlers.Count; i++)
        {
            var loop = options.Scheduler == PipeScheduler.EventLoop
                ? new EventLoopScheduler(start => new Thread(start) { IsBackground = true, Name = $"ObserveOn consumer {i}" })
                : null;
            IScheduler scheduler = options.Scheduler switch
            {
                PipeScheduler.ThreadPool => ThreadPoolScheduler.Instance,
                PipeScheduler.EventLoop => loop!,
                _ => TaskPoolScheduler.Default,
            };
            if (pooled)
            {
                // Without the long-running optimization Rx's ObserveOn drains its queue in pool work items, holding no
                // thread while idle, instead of on a long-running thread of its own.
                scheduler = scheduler.DisableOptimizations(typeof(ISchedulerLongRunning));
            }

            _subject.ObserveOn(scheduler).Subscribe(new Consumer(this, i, handlers[i], loop));
        }
    }

    public override bool TryPost(T message)
    {
        lock (_gate)
        {
            if (!_accepting)
            {
                return false;
            }

            _subject.OnNext(message);
            return true;
        }
    }

    protected override void Close()
    {
        lock (_gate)
        {
            _accepting = false;
            _subject.OnCompleted();
        }
    }

    /// <summary>One subscription: Rx runs it, the <see cref="TurnDelivery"/> rules hand each message over.</summary>
    private sealed class Consumer(ObserveOnPipe<T> pipe, int index, Action<T> handler, EventLoopScheduler? loop) : IObserver<T>
    {
        private PipeDelivery<T> _delivery = new(pipe, index, handler);

        public void OnNext(T value)
        {
            // Rx serializes a subscription's OnNext, so the count has one writer, as a turn's has.
            if (TurnDelivery.DeliverOne(ref _delivery, in value))
            {
                _delivery.Handled(1);
            }
        }

        public void OnError(Exception error) => OnCompleted();

        public void OnCompleted()
        {
            _delivery.Completed(); // the consumer's exit
            loop?.Dispose();
        }
    }
}
