using Concurrency.Messaging.Actors;

namespace Concurrency.Messaging.Sequences;

/// <summary>
/// The seed's actor server on our actor system: every request is an <c>Ask</c> through the mailbox of one
/// <see cref="SequenceActor"/>, answered on its turn; an update is answered once applied. The asks carry no timeout of
/// their own (a timeout would add a timer to every request); the caller's token bounds the wait.
/// </summary>
internal sealed class ActorSequenceService : ISequenceService
{
    private readonly ActorRef<SequenceEvent> _actor;
    private volatile bool _disposed; // set once by DisposeAsync, read by every request without a lock

    public ActorSequenceService(ActorSystem system, MailboxKind mailbox)
    {
        _actor = system.Spawn(
            static () => new SequenceActor(),
            new ActorOptions
            {
                Mailbox = mailbox,

                // The handler does not throw; if it ever did, a restart would start a fresh sequence at 0 and hand out
                // identities twice. Resuming keeps the sequence.
                Supervisor = static _ => SupervisionDirective.Resume,
            });
    }

    public ValueTask<long> NextAsync(CancellationToken cancellationToken = default)
    {
        if (_disposed)
        {
            return ValueTask.FromException<long>(new ObjectDisposedException(nameof(ISequenceService)));
        }

        return _actor.Ask<long>(SequenceEvent.Next, Timeout.InfiniteTimeSpan, cancellationToken);
    }

    public ValueTask UpdateAsync(long value, CancellationToken cancellationToken = default)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(value);
        if (_disposed)
        {
            return ValueTask.FromException(new ObjectDisposedException(nameof(ISequenceService)));
        }

        return AcknowledgedAsync(_actor.Ask<long>(SequenceEvent.Update(value), Timeout.InfiniteTimeSpan, cancellationToken));
    }

    /// <summary>Stops the actor after it has answered every request already in its mailbox, and waits for it to end.</summary>
    public async ValueTask DisposeAsync()
    {
        _disposed = true;
        await _actor.StopAsync(ActorStopMode.Drain).ConfigureAwait(false);
    }

    private static async ValueTask AcknowledgedAsync(ValueTask<long> applied) => await applied.ConfigureAwait(false);
}
