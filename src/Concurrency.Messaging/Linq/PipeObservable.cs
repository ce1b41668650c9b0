using Concurrency.Messaging.Pipes;

namespace Concurrency.Messaging.Linq;

/// <summary>
/// Drop-in replacements for Rx's <c>ObserveOn(scheduler)</c> that move notifications to a dedicated consumer through a pipe.
/// </summary>
/// <remarks>
/// The Rx grammar is kept: downstream OnNext calls are serialized and arrive in source order, OnCompleted or OnError arrives
/// after the last OnNext (a source error is delivered after the messages queued before it), and disposing the subscription
/// disposes the source subscription, stops delivery (at most the message being handled finishes) and frees the consumer.
/// If the downstream observer's OnNext throws, delivery stops, the source subscription is disposed and that exception is
/// delivered to the same observer's OnError; messages still queued are not delivered.
/// A bounded pipe (the ring, a bounded channel) applies back-pressure: the source's OnNext waits while the pipe is full;
/// an observer that calls its own source's OnNext while the pipe is full would wait for itself, so it gets an
/// <see cref="InvalidOperationException"/> instead.
/// A source that breaks the grammar by calling OnNext from several threads at once loses nothing: as Rx's own ObserveOn
/// tolerates it, these operators serialize such calls (the ring detects the second thread and switches to a lock).
/// If subscribing to the source throws, the pipe is aborted (its consumer exits) and the exception reaches the caller.
/// If the observer's OnError or OnCompleted throws (Rx's default onError rethrows), the exception is rethrown on a
/// thread-pool thread as an unhandled exception, which ends the process, as it does with Rx's own ObserveOn.
/// </remarks>
public static class PipeObservable
{
    /// <summary>Observes the source on a dedicated consumer thread through a single-producer lock-free ring.</summary>
    /// <typeparam name="T">The element type.</typeparam>
    /// <param name="source">The source sequence.</param>
    /// <param name="capacity">The ring's capacity, rounded up to a power of two. While it is full, the source's OnNext waits.</param>
    /// <returns>The source sequence, observed on the ring's consumer.</returns>
    public static IObservable<T> ObserveOnRing<T>(this IObservable<T> source, int capacity = Pipe.DefaultRingCapacity)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(capacity, 1);
        return ObserveOnPipe(source, PipeKind.Ring, new PipeOptions { Capacity = capacity });
    }

    /// <summary>Observes the source on a consumer task that drains a <see cref="System.Threading.Channels.Channel{T}"/>.</summary>
    /// <typeparam name="T">The element type.</typeparam>
    /// <param name="source">The source sequence.</param>
    /// <param name="capacity">The channel's capacity, or <see langword="null"/> for unbounded. While a bounded channel is full, the source's OnNext waits.</param>
    /// <returns>The source sequence, observed on the channel's consumer.</returns>
    public static IObservable<T> ObserveOnChannel<T>(this IObservable<T> source, int? capacity = null)
    {
        if (capacity is int bound)
        {
            ArgumentOutOfRangeException.ThrowIfLessThan(bound, 1, nameof(capacity));
        }

        return ObserveOnPipe(source, PipeKind.Channel, new PipeOptions { Capacity = capacity });
    }

    /// <summary>Observes the source on a dedicated consumer thread that drains a locked queue in batches.</summary>
    /// <typeparam name="T">The element type.</typeparam>
    /// <param name="source">The source sequence.</param>
    /// <returns>The source sequence, observed on the queue's consumer.</returns>
    public static IObservable<T> ObserveOnLockedQueue<T>(this IObservable<T> source)
        => ObserveOnPipe(source, PipeKind.BatchDrainQueue, new PipeOptions());

    /// <summary>Observes the source on the consumer of a pipe of any kind.</summary>
    /// <typeparam name="T">The element type.</typeparam>
    /// <param name="source">The source sequence.</param>
    /// <param name="kind">The pipe implementation.</param>
    /// <param name="options">Pipe options; producer count, distribution and abort token are set by the operator.</param>
    /// <returns>The source sequence, observed on the pipe's consumer.</returns>
    public static IObservable<T> ObserveOnPipe<T>(this IObservable<T> source, PipeKind kind, PipeOptions? options = null)
    {
        ArgumentNullException.ThrowIfNull(source);
        options = (options ?? new PipeOptions()) with { Producers = 1, Distribution = PipeDistribution.Broadcast, AbortToken = default, ToleratesConcurrentProducers = true };

        // Surface bad options at the call, not at the first Subscribe.
        Pipe.Validate(kind, 1, options);
        return new ObserveOnPipeObservable<T>(source, kind, options);
    }
}
