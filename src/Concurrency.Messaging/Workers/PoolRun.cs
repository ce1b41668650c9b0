namespace Concurrency.Messaging.Workers;

/// <summary>A <c>RunAsync</c> task: runs the work on a worker and completes the caller's task with its result or exception.</summary>
/// <typeparam name="T">The result type.</typeparam>
internal sealed class PoolRun<T>(Func<T> work, CancellationToken cancellationToken)
{
    // Continuations run off the worker, so an awaiting caller never borrows the worker's thread.
    private readonly TaskCompletionSource<T> _result = new(TaskCreationOptions.RunContinuationsAsynchronously);

    public Task<T> Task => _result.Task;

    /// <summary>Runs on a worker; never throws, so the worker reports nothing: the exception belongs to the caller's task.</summary>
    public void Execute()
    {
        if (cancellationToken.IsCancellationRequested)
        {
            _result.SetCanceled(cancellationToken);
            return;
        }

        try
        {
            _result.SetResult(work());
        }
        catch (Exception exception) // everything the work throws belongs to the caller's task
        {
            _result.SetException(exception);
        }
    }
}
