namespace Concurrency.Messaging.Linq;

/// <summary>The observable behind <see cref="ParallelObservable"/>: one <see cref="OrderedParallelSink{TSource, TResult}"/> per subscription.</summary>
internal sealed class OrderedParallelObserveOn<TSource, TResult>(
    IObservable<TSource> source,
    Func<TSource, TResult>? selector,
    Func<TSource, CancellationToken, ValueTask<TResult>>? asyncSelector,
    int degree) : IObservable<TResult>
{
    public IDisposable Subscribe(IObserver<TResult> observer)
    {
        ArgumentNullException.ThrowIfNull(observer);
        var sink = new OrderedParallelSink<TSource, TResult>(observer, selector, asyncSelector, degree);
        sink.Run(source);
        return sink;
    }
}
