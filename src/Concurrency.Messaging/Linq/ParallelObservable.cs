namespace Concurrency.Messaging.Linq;

/// <summary>
/// An ordered parallel ObserveOn: runs a selector on up to N source elements at once on the thread pool and emits the
/// results in the source's order.
/// </summary>
/// <remarks>
/// <para>
/// Window: at most N elements are in flight, counting both selectors still running and results waiting for an earlier
/// element, so a slow element holds back new work, not memory. Rx cannot back-pressure its source and the producer's
/// OnNext never blocks: elements that arrive while the window is full wait in an unbounded FIFO queue inside the
/// subscription and start, oldest first, as emission frees slots. A source much faster than the selectors therefore
/// grows that queue.
/// </para>
/// <para>
/// Threads: selectors run on thread-pool threads, up to N at once. The observer is called on whichever thread finished
/// the element at the head of the order (or delivered the source's terminal call), never by two threads at once and
/// never after OnError or OnCompleted.
/// </para>
/// <para>
/// Errors and completion: if a selector throws, the results before its element are emitted, then OnError with that
/// exception, and nothing after. A source error is delivered in order too: after the results of every element that
/// arrived before it. OnCompleted follows the last result. If the observer's OnNext throws, the source subscription is
/// disposed and the observer gets OnError with that exception. Disposing the subscription disposes the source
/// subscription, drops queued elements, stops emission and cancels the token passed to asynchronous selectors in
/// flight; so does an error.
/// </para>
/// </remarks>
public static class ParallelObservable
{
    /// <summary>Runs <paramref name="selector"/> on up to <paramref name="maxDegreeOfParallelism"/> elements at once and emits the results in order.</summary>
    /// <typeparam name="TSource">The source element type.</typeparam>
    /// <typeparam name="TResult">The result type.</typeparam>
    /// <param name="source">The source sequence.</param>
    /// <param name="selector">The work per element; runs on thread-pool threads, concurrently with itself.</param>
    /// <param name="maxDegreeOfParallelism">The window N; <see langword="null"/> for <see cref="Environment.ProcessorCount"/>.</param>
    /// <returns>The results, in source order.</returns>
    public static IObservable<TResult> ObserveOnParallel<TSource, TResult>(
        this IObservable<TSource> source, Func<TSource, TResult> selector, int? maxDegreeOfParallelism = null)
    {
        ArgumentNullException.ThrowIfNull(source);
        ArgumentNullException.ThrowIfNull(selector);
        return new OrderedParallelObserveOn<TSource, TResult>(source, selector, null, Degree(maxDegreeOfParallelism));
    }

    /// <summary>Runs an asynchronous <paramref name="selector"/> on up to <paramref name="maxDegreeOfParallelism"/> elements at once and emits the results in order.</summary>
    /// <typeparam name="TSource">The source element type.</typeparam>
    /// <typeparam name="TResult">The result type.</typeparam>
    /// <param name="source">The source sequence.</param>
    /// <param name="selector">The work per element; started on thread-pool threads. Its token is cancelled when the
    /// subscription is disposed or the sequence errors.</param>
    /// <param name="maxDegreeOfParallelism">The window N; <see langword="null"/> for <see cref="Environment.ProcessorCount"/>.</param>
    /// <returns>The results, in source order.</returns>
    public static IObservable<TResult> ObserveOnParallel<TSource, TResult>(
        this IObservable<TSource> source, Func<TSource, CancellationToken, ValueTask<TResult>> selector, int? maxDegreeOfParallelism = null)
    {
        ArgumentNullException.ThrowIfNull(source);
        ArgumentNullException.ThrowIfNull(selector);
        return new OrderedParallelObserveOn<TSource, TResult>(source, null, selector, Degree(maxDegreeOfParallelism));
    }

    private static int Degree(int? maxDegreeOfParallelism)
    {
        var degree = maxDegreeOfParallelism ?? Environment.ProcessorCount;
        ArgumentOutOfRangeException.ThrowIfLessThan(degree, 1, nameof(maxDegreeOfParallelism));
        return degree;
    }
}
