namespace Concurrency.Messaging.Pipes;

/// <summary>
/// Where producers wait for room in a bounded pipe, any number of them, synchronously or asynchronously. A consumer that
/// freed room checks <see cref="HasWaiters"/> with a plain read, once per batch, and wakes everyone only when someone waits.
/// </summary>
/// <remarks>
/// The race between "the consumer frees room, then sees no waiter" and "the producer registers, then sees no room" is closed
/// on the producer's side, which is the slow side: <see cref="Enter"/> registers, then issues a process-wide barrier, so
/// either the consumer sees the registration or the producer's re-check sees the room. The consumer pays no fence.
/// </remarks>
internal sealed class RoomSignal
{
    private TaskCompletionSource _next = NewSource(); // replaced on every wake (Interlocked); waiters wait on the one they read
    private int _waiters;                             // Interlocked: producers between Enter and Leave

    public bool HasWaiters => Volatile.Read(ref _waiters) != 0;

    /// <summary>
    /// Registers a waiter. The caller must then re-check its condition, wait on the returned task only if it still has to
    /// (a wake after <see cref="Enter"/> completes that task), and call <see cref="Leave"/> in all cases.
    /// </summary>
    public Task Enter()
    {
        Interlocked.Increment(ref _waiters);
        Interlocked.MemoryBarrierProcessWide();
        return Volatile.Read(ref _next).Task;
    }

    public void Leave() => Interlocked.Decrement(ref _waiters);

    /// <summary>Wakes every producer that registered before this call; they re-check and register again if they must.</summary>
    public void WakeAll() => Interlocked.Exchange(ref _next, NewSource()).TrySetResult();

    // Continuations run asynchronously: an awaiting producer must never resume on the consumer's thread.
    private static TaskCompletionSource NewSource() => new(TaskCreationOptions.RunContinuationsAsynchronously);
}
