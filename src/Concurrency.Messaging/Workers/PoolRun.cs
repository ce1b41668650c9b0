namespace Concurrency.Messaging.Workers;

/// <summary>
/// A <c>RunAsync</c> task: runs the work on a worker and completes the caller's task with its result or exception, unless
/// the caller's token fires first while the task is queued; then the caller's task is cancelled at once and the work never
/// runs. Exactly one of start and cancel wins, by one compare-and-swap of <see cref="_state"/>.
/// </summary>
/// <typeparam name="T">The result type.</typeparam>
internal sealed class PoolRun<T>
{
    private const int Queued = 0;
    private const int Started = 1;
    private const int Cancelled = 2;

    // Continuations run off the worker, so an awaiting caller never borrows the worker's thread.
    private readonly TaskCompletionSource<T> _result = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly Func<T> _work;
    private readonly CancellationToken _cancellationToken;

    // Set in the constructor, before the run is queued, so the worker that dequeues it sees it (the pool's gate orders
    // the two). Unregistered once the work starts, or when the pool refuses the run, so the token keeps nothing alive.
    private readonly CancellationTokenRegistration _registration;
    private int _state; // Interlocked: Queued, then Started (a worker took it) or Cancelled (the token fired first)

    public PoolRun(Func<T> work, CancellationToken cancellationToken)
    {
        _work = work;
        _cancellationToken = cancellationToken;

        // An already cancelled token runs the callback here, synchronously: the task is cancelled before it is queued.
        _registration = cancellationToken.Register(static run => ((PoolRun<T>)run!).Cancel(), this);
    }

    public Task<T> Task => _result.Task;

    /// <summary>Runs on a worker; never throws, so the worker reports nothing: the exception belongs to the caller's task.</summary>
    public void Execute()
    {
        if (Interlocked.CompareExchange(ref _state, Started, Queued) != Queued)
        {
            return; // cancelled while queued: the caller's task is already cancelled
        }

        // Unregister does not wait for a callback under way: one that lost the race above returns without touching the task.
        _registration.Unregister();
        try
        {
            _result.SetResult(_work());
        }
        catch (Exception exception) // everything the work throws belongs to the caller's task
        {
            _result.SetException(exception);
        }
    }

    /// <summary>Called when the pool refused the run (it was disposed): the registration goes, the task is never handed out.</summary>
    public void Abandon() => _registration.Dispose();

    private void Cancel()
    {
        if (Interlocked.CompareExchange(ref _state, Cancelled, Queued) == Queued)
        {
            _result.SetCanceled(_cancellationToken);
        }
    }
}
