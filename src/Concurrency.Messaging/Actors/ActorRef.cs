namespace Concurrency.Messaging.Actors;

/// <summary>
/// The address of a running actor: tell it messages from any thread, ask it for replies, stop it, await its end.
/// Messages from one sender are handled in the order that sender told them.
/// </summary>
/// <typeparam name="T">The actor's message type.</typeparam>
/// <remarks>It decides what a refused message becomes (a dead letter, a rejection, a wait for room) and hands the rest to the
/// actor's mailbox; it stays the same across the actor's restarts.</remarks>
public abstract class ActorRef<T>
{
    private protected ActorRef()
    {
    }

    /// <summary>Gets the actor's name (given in <see cref="ActorOptions.Name"/>, or made up by the system from its number).</summary>
    public string Name => NameCore;

    /// <summary>Gets the mailbox's queue.</summary>
    public abstract MailboxKind MailboxKind { get; }

    /// <summary>Gets whether the actor no longer accepts messages (it was stopped, or is terminated).</summary>
    public abstract bool IsStopped { get; }

    /// <summary>Gets the number of messages the actor discarded when it stopped without draining.</summary>
    public abstract long DiscardedCount { get; }

    /// <summary>
    /// Gets a task that finishes when the actor has terminated: after a drain, its last message was handled. It faults with
    /// the handler's exception if the supervisor stopped the actor.
    /// </summary>
    public abstract Task Termination { get; }

    /// <summary>
    /// Sends a message without waiting for it to be handled. A message to a stopped actor is a dead letter: counted and
    /// reported on <see cref="ActorSystem.DeadLetters"/>, not thrown.
    /// </summary>
    /// <param name="message">The message.</param>
    /// <exception cref="MailboxFullException">A bounded mailbox with <see cref="MailboxFullMode.Reject"/> is full; or a bounded
    /// mailbox with <see cref="MailboxFullMode.Wait"/> is full and the caller is inside an actor's turn.</exception>
    /// <remarks>With <see cref="MailboxFullMode.Wait"/>, outside an actor's turn this blocks the calling thread while the mailbox
    /// is full. Inside a turn (a handler telling another actor, or itself) it never blocks: a full mailbox throws
    /// <see cref="MailboxFullException"/> at once, which the sender's supervisor handles like any handler exception, because
    /// two actors waiting for room in each other's full mailboxes would hold two pool threads for ever. From a handler, send
    /// with <see cref="TryTell"/> where a full mailbox is expected.</remarks>
    public abstract void Tell(T message);

    /// <summary>Sends a message if the mailbox has room now.</summary>
    /// <returns><see langword="false"/> if a bounded mailbox is full, or the actor stopped (then the message is also a dead letter).</returns>
    public abstract bool TryTell(T message);

    /// <summary>Sends a message, waiting asynchronously while a bounded mailbox is full.</summary>
    /// <param name="message">The message.</param>
    /// <param name="cancellationToken">Cancels the wait for room; the message is then not sent.</param>
    /// <exception cref="MailboxFullException">A bounded mailbox with <see cref="MailboxFullMode.Reject"/> is full.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled first.</exception>
    public abstract ValueTask TellAsync(T message, CancellationToken cancellationToken = default);

    /// <summary>
    /// Sends a request and waits for the actor's reply (see <see cref="ActorContext{T}.Reply{TReply}"/>).
    /// </summary>
    /// <typeparam name="TReply">The reply type.</typeparam>
    /// <param name="message">The request.</param>
    /// <param name="timeout">How long to wait for the reply; <see cref="Timeout.InfiniteTimeSpan"/> for no limit.</param>
    /// <param name="cancellationToken">Cancels the wait.</param>
    /// <returns>The reply.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="timeout"/> is not infinite and either not positive or
    /// longer than a timer accepts (<see cref="uint.MaxValue"/> - 1 milliseconds).</exception>
    /// <exception cref="TimeoutException">No reply within <paramref name="timeout"/>.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled first.</exception>
    /// <exception cref="ActorStoppedException">The actor stopped, or was stopped, before it replied.</exception>
    /// <exception cref="MailboxFullException">A bounded mailbox with <see cref="MailboxFullMode.Reject"/> is full.</exception>
    /// <remarks>If the actor's handler throws while handling the request, the caller gets that exception.</remarks>
    public abstract ValueTask<TReply> Ask<TReply>(T message, TimeSpan timeout, CancellationToken cancellationToken = default);

    /// <summary>Sends a request and waits for the reply up to <see cref="ActorSystemOptions.AskTimeout"/>.</summary>
    /// <inheritdoc cref="Ask{TReply}(T, TimeSpan, CancellationToken)"/>
    public abstract ValueTask<TReply> Ask<TReply>(T message, CancellationToken cancellationToken = default);

    /// <summary>Stops accepting messages (later ones are dead letters) and terminates after draining or discarding the mailbox.</summary>
    /// <param name="mode">Whether to handle or discard the messages already accepted.</param>
    /// <returns><see langword="true"/> if this call stopped the actor; <see langword="false"/> if it was already stopping.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="mode"/> is not a defined value.</exception>
    public bool Stop(ActorStopMode mode = ActorStopMode.Drain)
    {
        if (!Enum.IsDefined(mode))
        {
            throw new ArgumentOutOfRangeException(nameof(mode), mode, "Unknown stop mode.");
        }

        return StopCore(mode);
    }

    private protected abstract string NameCore { get; }

    private protected abstract bool StopCore(ActorStopMode mode);

    /// <summary>Stops the actor (see <see cref="Stop"/>) and waits for it to terminate.</summary>
    /// <param name="mode">Whether to handle or discard the messages already accepted.</param>
    /// <param name="cancellationToken">Cancels the wait, not the stop.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="mode"/> is not a defined value.</exception>
    public async Task StopAsync(ActorStopMode mode = ActorStopMode.Drain, CancellationToken cancellationToken = default)
    {
        Stop(mode);
        await Termination.WaitAsync(cancellationToken).ConfigureAwait(false);
    }

    /// <inheritdoc/>
    public override string ToString() => Name;
}
