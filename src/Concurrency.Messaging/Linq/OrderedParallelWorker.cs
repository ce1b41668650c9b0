using System.Runtime.CompilerServices;

namespace Concurrency.Messaging.Linq;

/// <summary>
/// A reusable worker loop of an <see cref="OrderedParallelSink{TSource, TResult}"/>: runs the selector on its element,
/// hands the outcome to the sink and goes on while the sink gives it another. One object serves many elements, so the
/// synchronous path allocates nothing per element. The sink queues a worker to the thread pool only while it is idle, so
/// no worker ever runs on two threads at once.
/// </summary>
internal sealed class OrderedParallelWorker<TSource, TResult> : IThreadPoolWorkItem
{
    private readonly OrderedParallelSink<TSource, TResult> _sink;
    private readonly Func<TSource, TResult>? _selector;
    private readonly Func<TSource, CancellationToken, ValueTask<TResult>>? _asyncSelector;
    private readonly CancellationToken _token;
    private readonly Action _resume; // cached, so awaiting a selector allocates no continuation delegate

    // Owned by this worker's loop: the asynchronous selector it waits for, between Execute and Resume.
    private ConfiguredValueTaskAwaitable<TResult>.ConfiguredValueTaskAwaiter _pending;

    public OrderedParallelWorker(OrderedParallelSink<TSource, TResult> sink)
    {
        _sink = sink;
        _selector = sink.Selector;
        _asyncSelector = sink.AsyncSelector;
        _token = sink.Cancellation;
        _resume = Resume;
    }

    /// <summary>The element's sequence number; set by the sink under its gate before the loop reads it.</summary>
    public long Sequence { get; set; }

    /// <summary>The element; set by the sink under its gate, cleared by the sink when the outcome is stored.</summary>
    public TSource Item { get; set; } = default!;

    /// <summary>Runs on a thread-pool thread: selector, outcome, next element, until the sink has none for this worker.</summary>
    public void Execute()
    {
        while (true)
        {
            TResult result = default!;
            Exception? error = null;
            try
            {
                if (_selector is not null)
                {
                    result = _selector(Item);
                }
                else
                {
                    var pending = _asyncSelector!(Item, _token);
                    if (!pending.IsCompleted)
                    {
                        _pending = pending.ConfigureAwait(false).GetAwaiter();
                        _pending.UnsafeOnCompleted(_resume);
                        return;
                    }

                    result = pending.GetAwaiter().GetResult();
                }
            }
            catch (Exception ex)
            {
                error = ex;
            }

            // Once the sink says no, this object may already be queued for another element: touch nothing more.
            if (!_sink.Complete(this, result, error))
            {
                return;
            }
        }
    }

    /// <summary>Runs where the awaited selector completed; the next selector goes back to the thread pool.</summary>
    private void Resume()
    {
        TResult result = default!;
        Exception? error = null;
        try
        {
            result = _pending.GetResult();
        }
        catch (Exception ex)
        {
            error = ex;
        }

        _pending = default;
        if (_sink.Complete(this, result, error))
        {
            ThreadPool.UnsafeQueueUserWorkItem(this, preferLocal: false);
        }
    }
}
