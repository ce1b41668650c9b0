namespace Concurrency.Messaging.Actors;

/// <summary>
/// What only a stopping, failing or deferring actor needs, made by its <see cref="ActorCell{T}"/> on first use so that an
/// idle actor pays one null field for all of it: the termination task (the failure rides on it), the count of discarded
/// messages, and the replies taken out of a turn.
/// </summary>
internal sealed class ActorEnding() : TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously)
{
    /// <summary>Set by the turn before Terminated when the supervisor (or a failed queue) stopped the actor; read after.</summary>
    public Exception? Failure;

    /// <summary>Messages discarded while stopping: written by the turn, read by anyone (Interlocked).</summary>
    public long Discarded;

    /// <summary>Asks taken out of a turn and not yet completed; created on the first (CompareExchange), guarded by lock on itself.</summary>
    public HashSet<AskPromise>? Deferred;

    public HashSet<AskPromise> GetDeferred()
    {
        var deferred = Volatile.Read(ref Deferred);
        if (deferred is null)
        {
            var created = new HashSet<AskPromise>(ReferenceEqualityComparer.Instance);
            deferred = Interlocked.CompareExchange(ref Deferred, created, null) ?? created;
        }

        return deferred;
    }

    /// <summary>A deferred reply was completed: it no longer fails at termination. Any thread.</summary>
    public void Forget(AskPromise promise)
    {
        var deferred = Volatile.Read(ref Deferred)!;
        lock (deferred)
        {
            deferred.Remove(promise);
        }
    }

    /// <summary>Completes the termination task, faulted if the actor was stopped by a failure. Once Terminated; idempotent.</summary>
    public void Complete()
    {
        if (Failure is { } failure)
        {
            TrySetException(failure);
        }
        else
        {
            TrySetResult();
        }
    }
}
