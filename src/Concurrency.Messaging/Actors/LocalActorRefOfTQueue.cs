using Concurrency.Messaging.Internal;

namespace Concurrency.Messaging.Actors;

/// <summary>
/// The address rules over a mailbox of one queue kind: a post that the queue refuses after the actor stopped is a dead
/// letter; one it refuses while the actor accepts found it full, and then the full mode decides (reject, or wait for
/// room: asynchronously, or blocking outside a turn); an <c>Ask</c> carries its reply's promise in the envelope. The
/// mailbox only posts, waits for room and closes.
/// </summary>
/// <remarks>
/// Sealed and generic over the queue, so that a <see cref="Tell"/> is one virtual call (<see cref="ActorRef{T}.Tell"/>)
/// and then direct calls down to the queue.
/// </remarks>
internal sealed class LocalActorRef<T, TQueue> : LocalActorRef<T>
    where TQueue : struct, IMailboxQueue<T>
{
    private readonly Mailbox<T, TQueue> _mailbox;

    public LocalActorRef(ActorSystem system, Func<Actor<T>> factory, ActorOptions options, long id) =>
        _mailbox = new Mailbox<T, TQueue>(new ActorCell<T>(system, factory, options, id, this), options);

    public override MailboxKind MailboxKind => TQueue.Kind;

    public override long HandledCount => _mailbox.HandledCount;

    private protected override ActorCell<T> Cell => _mailbox.Cell; // not a field of its own: an idle actor is 8 bytes smaller

    public override void Tell(T message)
    {
        if (!_mailbox.TryPost(new Envelope<T>(message, null)))
        {
            TellRefused(message);
        }
    }

    public override bool TryTell(T message)
    {
        if (_mailbox.TryPost(new Envelope<T>(message, null)))
        {
            return true;
        }

        if (!Cell.IsAccepting)
        {
            ReportDeadLetter(message);
        }

        return false;
    }

    public override ValueTask TellAsync(T message, CancellationToken cancellationToken = default)
    {
        if (cancellationToken.IsCancellationRequested)
        {
            return ValueTask.FromCanceled(cancellationToken);
        }

        if (_mailbox.TryPost(new Envelope<T>(message, null)))
        {
            return default;
        }

        if (!Cell.IsAccepting)
        {
            ReportDeadLetter(message);
            return default;
        }

        return Cell.FullMode == MailboxFullMode.Reject
            ? ValueTask.FromException(new MailboxFullException(Name))
            : TellWaitingAsync(message, cancellationToken);
    }

    public override ValueTask<TReply> Ask<TReply>(T message, CancellationToken cancellationToken = default) =>
        Ask<TReply>(message, Cell.System.AskTimeout, cancellationToken);

    public override ValueTask<TReply> Ask<TReply>(T message, TimeSpan timeout, CancellationToken cancellationToken = default)
    {
        AskPromise.ThrowIfBadTimeout(timeout, nameof(timeout));

        if (cancellationToken.IsCancellationRequested)
        {
            return ValueTask.FromCanceled<TReply>(cancellationToken);
        }

        var promise = new AskPromise<TReply>();
        promise.Arm(Cell.System.TimeProvider, timeout, cancellationToken);
        var envelope = new Envelope<T>(message, promise);
        if (_mailbox.TryPost(in envelope))
        {
            return promise.Task;
        }

        if (!Cell.IsAccepting)
        {
            ReportDeadLetter(message);
            promise.TryFail(new ActorStoppedException(Name));
            return promise.Task;
        }

        if (Cell.FullMode == MailboxFullMode.Reject)
        {
            promise.TryFail(new MailboxFullException(Name));
            return promise.Task;
        }

        return AskWaitingAsync(envelope, promise, cancellationToken);
    }

    /// <summary>Stops accepting, then closes the queue (see <see cref="ActorRef{T}.Stop"/>); the mode is a defined one.</summary>
    private protected override bool StopCore(ActorStopMode mode)
    {
        if (!Cell.TryStop(mode))
        {
            return false;
        }

        _mailbox.Close();
        return true;
    }

    /// <summary>A <see cref="Tell"/> the queue refused: stopped, or full.</summary>
    private void TellRefused(T message)
    {
        if (!Cell.IsAccepting)
        {
            ReportDeadLetter(message);
            return;
        }

        if (Cell.FullMode == MailboxFullMode.Reject)
        {
            throw new MailboxFullException(Name);
        }

        // Inside a turn (this actor's or any other's) a wait would hold a pool thread until the target makes room, and the
        // target may be waiting for this very turn: itself, or a peer telling back into this actor's full mailbox.
        if (TurnRunner.InTurn)
        {
            throw MailboxFullException.InsideTurn(Name);
        }

        if (!_mailbox.PostWaitingAsync(new Envelope<T>(message, null), CancellationToken.None).AsTask().GetAwaiter().GetResult())
        {
            ReportDeadLetter(message);
        }
    }

    private async ValueTask TellWaitingAsync(T message, CancellationToken cancellationToken)
    {
        if (!await _mailbox.PostWaitingAsync(new Envelope<T>(message, null), cancellationToken).ConfigureAwait(false))
        {
            ReportDeadLetter(message);
        }
    }

    private async ValueTask<TReply> AskWaitingAsync<TReply>(Envelope<T> envelope, AskPromise<TReply> promise, CancellationToken cancellationToken)
    {
        try
        {
            if (!await _mailbox.PostWaitingAsync(envelope, cancellationToken).ConfigureAwait(false))
            {
                ReportDeadLetter(envelope.Message);
                promise.TryFail(new ActorStoppedException(Name));
            }
        }
        catch (Exception ex)
        {
            promise.TryFail(ex);
        }

        return await promise.Task.ConfigureAwait(false);
    }

    private void ReportDeadLetter(T message) => Cell.System.ReportDeadLetter(new DeadLetter(Name, message));
}
