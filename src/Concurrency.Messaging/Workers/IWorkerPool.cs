namespace Concurrency.Messaging.Workers;

/// <summary>
/// An elastic pool of dedicated worker threads: up to <see cref="WorkerPoolOptions.MaxWorkers"/> workers, a task never
/// waits for a free worker, because a new one starts whenever none is idle, so blocking work is fine. At the cap, tasks
/// wait in the queue and run in order as workers finish. Workers that a spike created are retired later (see
/// <see cref="WorkerRetirement"/>), and the pool may grow again up to the cap.
/// </summary>
/// <remarks>
/// <para>
/// A task accepted by <see cref="Post"/>, <see cref="TryPost"/> or <c>RunAsync</c> runs exactly once. Nothing a task throws is
/// swallowed and none of it ends a worker: a posted task's exception is counted in <see cref="WorkerPoolMetrics.TasksFailed"/>
/// and reported on <see cref="Failures"/>; a <c>RunAsync</c> task's exception faults the task it returned.
/// </para>
/// <para>
/// Disposing stops the pool from accepting tasks and stops its retirement timer; the workers run every task already
/// accepted (queued ones included), then exit. <see cref="IAsyncDisposable.DisposeAsync"/> and <see cref="IDisposable.Dispose"/>
/// wait for that without a bound; <see cref="ShutdownAsync"/> bounds the wait with a token. Called from one of the pool's
/// own tasks, <see cref="IDisposable.Dispose"/> shuts the pool down without waiting, since it would wait for itself.
/// </para>
/// </remarks>
public interface IWorkerPool : IAsyncDisposable, IDisposable
{
    /// <summary>
    /// Gets every exception a posted task threw, as it happens. Subscribers are called on the worker's thread and must not
    /// throw: an exception a subscriber throws is counted in <see cref="WorkerPoolMetrics.SubscriberErrors"/> and dropped, so
    /// that it cannot end the worker or the process.
    /// </summary>
    IObservable<WorkerPoolFailure> Failures { get; }

    /// <summary>Gets a snapshot of the pool's counters.</summary>
    WorkerPoolMetrics Metrics { get; }

    /// <summary>Runs <paramref name="work"/> on a worker, starting one if none is idle and the pool is under its cap.</summary>
    /// <param name="work">The task. What it throws is reported on <see cref="Failures"/>.</param>
    /// <exception cref="ArgumentNullException"><paramref name="work"/> is <see langword="null"/>.</exception>
    /// <exception cref="ObjectDisposedException">The pool was disposed.</exception>
    /// <exception cref="OutOfMemoryException">A new worker's thread could not be started; the task was not accepted.</exception>
    void Post(Action work);

    /// <summary>Runs <paramref name="work"/> on a worker, starting one if none is idle and the pool is under its cap, unless the pool was disposed.</summary>
    /// <param name="work">The task. What it throws is reported on <see cref="Failures"/>.</param>
    /// <returns><see langword="false"/> if the pool was disposed and the task will not run.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="work"/> is <see langword="null"/>.</exception>
    bool TryPost(Action work);

    /// <summary>Runs <paramref name="work"/> on a worker and returns a task for its end.</summary>
    /// <param name="work">The work.</param>
    /// <param name="cancellationToken">Cancels the work if it has not started yet: the returned task is cancelled at once,
    /// even while the work waits in the queue, and the work never runs. The work itself is not given the token.</param>
    /// <returns>A task that completes when the work has run, faults with what it threw, or is cancelled if it never started.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="work"/> is <see langword="null"/>.</exception>
    /// <exception cref="ObjectDisposedException">The pool was disposed.</exception>
    Task RunAsync(Action work, CancellationToken cancellationToken = default);

    /// <summary>Runs <paramref name="work"/> on a worker and returns a task for its result.</summary>
    /// <typeparam name="T">The result type.</typeparam>
    /// <param name="work">The work.</param>
    /// <param name="cancellationToken">Cancels the work if it has not started yet: the returned task is cancelled at once,
    /// even while the work waits in the queue, and the work never runs. The work itself is not given the token.</param>
    /// <returns>A task with the work's result, faulted with what it threw, or cancelled if it never started.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="work"/> is <see langword="null"/>.</exception>
    /// <exception cref="ObjectDisposedException">The pool was disposed.</exception>
    Task<T> RunAsync<T>(Func<T> work, CancellationToken cancellationToken = default);

    /// <summary>
    /// Stops accepting tasks and stops retiring workers, then waits for the workers to run what was accepted and exit.
    /// Calling it again waits for the same end.
    /// </summary>
    /// <param name="cancellationToken">Cancels the wait, not the shutdown.</param>
    /// <returns>A task that completes when every worker has exited.</returns>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled before every worker exited.</exception>
    Task ShutdownAsync(CancellationToken cancellationToken = default);
}
