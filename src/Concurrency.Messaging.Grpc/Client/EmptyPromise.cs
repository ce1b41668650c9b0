namespace Concurrency.Messaging.Grpc;

/// <summary>
/// The promise that a collection becomes empty, for a closing part that waits for the last of its work: made by the first
/// wait, taken by the change that empties the collection, which completes it. Completions run no continuation inline
/// (<see cref="TaskCreationOptions.RunContinuationsAsynchronously"/>), so the owner may complete it under its lock or after.
/// </summary>
/// <remarks>
/// Guarded by the lock of the collection's owner, which holds it for both members. A mutable struct: keep it in a field
/// that is not <see langword="readonly"/>, or a wait makes its promise on a copy.
/// </remarks>
internal struct EmptyPromise
{
    private TaskCompletionSource? _waiter; // guarded by the owner's lock: made by the first wait, taken as the collection empties

    /// <summary>Returns a task that finishes when the collection is next empty; a finished one if <paramref name="empty"/>.</summary>
    public Task WhenEmpty(bool empty)
    {
        if (empty)
        {
            return Task.CompletedTask;
        }

        _waiter ??= new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        return _waiter.Task;
    }

    /// <summary>Called as the collection becomes empty: takes the promise, if anyone waits, for the caller to complete.</summary>
    public TaskCompletionSource? Take()
    {
        var waiter = _waiter;
        _waiter = null;
        return waiter;
    }
}
