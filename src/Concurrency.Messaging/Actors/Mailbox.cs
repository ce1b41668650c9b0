using Concurrency.Messaging.Internal;
using Concurrency.Messaging.Pipes;

namespace Concurrency.Messaging.Actors;

/// <summary>
/// An actor's mailbox: a queue of the pipes' family, the <see cref="TurnRunner"/>'s turn over it, and the
/// <see cref="ActorCell{T}"/> the turn hands messages to, composed in one object (the queue and the cell are structs held
/// in place, so the turn follows no extra reference per message); the <see cref="LocalActorRef{T}"/> that users hold
/// forwards to it. A post that finds the
/// actor idle schedules one turn (the queue decides, see <see cref="ITurnQueue{T}"/>, so a turn is never queued twice nor
/// missed); a turn handles up to the throughput budget, then queues the next turn if more is waiting or goes idle. At most
/// one turn runs at a time, so the fields marked "turn" need no lock, and the actor handles one message at a time. Actors
/// take the runner's run-next slot. Each queue kind is a subclass that says how to post, close and take.
/// </summary>
/// <remarks>
/// A handler that returns before its work is done (<see cref="AsyncActor{T}"/>, whose <c>ReceiveAsync</c> awaits) ends
/// the turn without going idle: the queue still counts the actor as scheduled, so posts only enqueue, and nothing else is
/// handled. The turn's last act is to hang a continuation on the handler's task; when it completes, the continuation
/// schedules the next turn, which ends the handling (a failure goes to the supervisor) and goes on with the batch. The
/// handler's own code after its await is then the only code touching the actor, so the "turn" fields keep one owner.
/// </remarks>
internal abstract class Mailbox<T> : ITurn, IActorControl
{
    private readonly long _id;                     // the system's number for the actor, for a name made up on demand
    private string? _name;                         // given, or made up on first request (a race makes the same string twice, harmlessly)
    private TurnBatch<Envelope<T>> _batch = new(); // turn: messages taken but not yet handled
    private long _handled;                         // turn: a plain add once per turn (see TurnRunner.Run); read by anyone (Volatile)
    private ActorCell<T> _cell;                    // used in place: the behaviour, its supervision, replies and ending

    protected Mailbox(ActorSystem system, Func<Actor<T>> factory, ActorOptions options, long id)
    {
        _id = id;
        _name = options.Name;
        _cell = new ActorCell<T>(system, factory, options);
    }

    /// <summary>Gets the actor's cell, in place: what the behaviour's context and the turn act on.</summary>
    internal ref ActorCell<T> Cell => ref _cell;

    /// <summary>Gets the actor's name (see <see cref="ActorRef{T}.Name"/>).</summary>
    public string Name => _name ??= $"actor-{_id}";

    public abstract MailboxKind MailboxKind { get; }

    /// <summary>Gets whether the actor still accepts messages: set false before the queue is closed.</summary>
    protected bool IsAccepting => _cell.IsAccepting;

    protected MailboxFullMode FullMode => _cell.Options.FullMode;

    public bool IsStopped => _cell.IsStopped;

    public long DiscardedCount => _cell.DiscardedCount;

    public long HandledCount => Volatile.Read(ref _handled);

    public Task Termination => _cell.Termination;

    /// <summary>Offers a message to the queue without waiting.</summary>
    /// <param name="envelope">The message.</param>
    /// <param name="full">When refused: <see langword="true"/> if the queue is full, <see langword="false"/> if it is closed.</param>
    protected abstract bool TryPost(in Envelope<T> envelope, out bool full);

    /// <summary>Posts, waiting asynchronously for room; <see langword="false"/> if the queue closed first.</summary>
    protected abstract ValueTask<bool> PostWaitingAsync(Envelope<T> envelope, CancellationToken cancellationToken);

    /// <summary>Refuses further posts; the turn drains what was accepted and then finds the queue completed. Called once, by the cell that stopped.</summary>
    internal abstract void CloseQueue();

    /// <summary>Runs one turn over the mailbox's queue: <see cref="RunTurn{TQueue}"/> with it, held in place.</summary>
    public abstract void RunTurn();

    /// <summary>Creates the first behaviour, answering to <paramref name="self"/>: once constructed, before the first post.</summary>
    public void Start(LocalActorRef<T> self) => _cell.Start(self);

    public void Tell(T message)
    {
        if (!TryPost(new Envelope<T>(message, null), out var full))
        {
            TellRefused(message, full);
        }
    }

    public bool TryTell(T message)
    {
        if (TryPost(new Envelope<T>(message, null), out var full))
        {
            return true;
        }

        if (!full)
        {
            ReportDeadLetter(message);
        }

        return false;
    }

    public ValueTask TellAsync(T message, CancellationToken cancellationToken)
    {
        if (cancellationToken.IsCancellationRequested)
        {
            return ValueTask.FromCanceled(cancellationToken);
        }

        if (TryPost(new Envelope<T>(message, null), out var full))
        {
            return default;
        }

        if (!full)
        {
            ReportDeadLetter(message);
            return default;
        }

        return FullMode == MailboxFullMode.Reject
            ? ValueTask.FromException(new MailboxFullException(Name))
            : TellWaitingAsync(message, cancellationToken);
    }

    public ValueTask<TReply> Ask<TReply>(T message, CancellationToken cancellationToken) =>
        Ask<TReply>(message, _cell.System.AskTimeout, cancellationToken);

    public ValueTask<TReply> Ask<TReply>(T message, TimeSpan timeout, CancellationToken cancellationToken)
    {
        AskPromise.ThrowIfBadTimeout(timeout, nameof(timeout));

        if (cancellationToken.IsCancellationRequested)
        {
            return ValueTask.FromCanceled<TReply>(cancellationToken);
        }

        var promise = new AskPromise<TReply>();
        promise.Arm(_cell.System.TimeProvider, timeout, cancellationToken);
        var envelope = new Envelope<T>(message, promise);
        if (TryPost(envelope, out var full))
        {
            return promise.Task;
        }

        if (!full)
        {
            ReportDeadLetter(message);
            promise.TryFail(new ActorStoppedException(Name));
            return promise.Task;
        }

        if (FullMode == MailboxFullMode.Reject)
        {
            promise.TryFail(new MailboxFullException(Name));
            return promise.Task;
        }

        return AskWaitingAsync(envelope, promise, cancellationToken);
    }

    /// <summary>Stops accepting and closes the queue (see <see cref="ActorRef{T}.Stop"/>); the mode is a defined one.</summary>
    public bool Stop(ActorStopMode mode)
    {
        if (!_cell.TryStop(mode))
        {
            return false;
        }

        CloseQueue();
        return true;
    }

    Task IActorControl.StopAsync(ActorStopMode mode)
    {
        Stop(mode);
        return Termination;
    }

    public void Schedule() => TurnRunner.Schedule(this, mayRunNext: true);

    public void Execute() => TurnRunner.RunChained(this);

    /// <summary>
    /// One turn over <paramref name="queue"/>: first ends the message whose handler awaited, if any, then lets the runner
    /// take and hand over up to the throughput.
    /// </summary>
    private protected void RunTurn<TQueue>(ref TQueue queue)
        where TQueue : struct, ITurnQueue<Envelope<T>>
    {
        if (_cell.IsAwaiting)
        {
            _cell.EndAwaited(this);
        }

        var delivery = new Delivery(this);
        TurnRunner.Run(this, ref queue, ref delivery, ref _batch, _cell.Throughput);
    }

    /// <summary>Producer side, for a queue with an <see cref="IdleFlag"/>: after a post (or the close), schedules the idle actor.</summary>
    private protected void WakeIfIdle<TQueue>(ref TQueue queue)
        where TQueue : struct, ITurnQueue<Envelope<T>>
        => TurnRunner.WakeIfIdle<Envelope<T>, TQueue>(this, ref queue, mayRunNext: true);

    private void TellRefused(T message, bool full)
    {
        if (!full)
        {
            ReportDeadLetter(message);
            return;
        }

        if (FullMode == MailboxFullMode.Reject)
        {
            throw new MailboxFullException(Name);
        }

        // Inside a turn (this actor's or any other's) a wait would hold a pool thread until the target makes room, and the
        // target may be waiting for this very turn: itself, or a peer telling back into this actor's full mailbox.
        if (TurnRunner.InTurn)
        {
            throw MailboxFullException.InsideTurn(Name);
        }

        if (!PostWaitingAsync(new Envelope<T>(message, null), CancellationToken.None).AsTask().GetAwaiter().GetResult())
        {
            ReportDeadLetter(message);
        }
    }

    private async ValueTask TellWaitingAsync(T message, CancellationToken cancellationToken)
    {
        if (!await PostWaitingAsync(new Envelope<T>(message, null), cancellationToken).ConfigureAwait(false))
        {
            ReportDeadLetter(message);
        }
    }

    private async ValueTask<TReply> AskWaitingAsync<TReply>(Envelope<T> envelope, AskPromise<TReply> promise, CancellationToken cancellationToken)
    {
        try
        {
            if (!await PostWaitingAsync(envelope, cancellationToken).ConfigureAwait(false))
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

    private void ReportDeadLetter(T message) => _cell.System.ReportDeadLetter(new DeadLetter(Name, message));

    /// <summary>
    /// The mailbox as the <see cref="TurnRunner"/>'s owner: messages go to the cell's behaviour, a throw to its supervisor;
    /// once it discards, messages are dead letters; an async handler that awaits suspends the turn.
    /// </summary>
    private readonly struct Delivery(Mailbox<T> mailbox) : ITurnOwner<Envelope<T>>
    {
        public bool LooksBeforeIdle => false; // an actor's partner is usually woken through the run-next slot, not spinning

        public bool IsStopping => mailbox._cell.IsDiscarding;

        public bool IsSuspended => mailbox._cell.IsAwaiting;

        public void Deliver(Slot<Envelope<T>>[] batch, ref int next, int end) => mailbox._cell.Actor.ReceiveBatch(mailbox, batch, ref next, end);

        public void DeliverOne(in Envelope<T> message) => mailbox._cell.Actor.ReceiveOne(mailbox, in message);

        public void Handled(int count) => Volatile.Write(ref mailbox._handled, mailbox._handled + count); // one turn at a time: one writer

        public void Unhandled(Slot<Envelope<T>>[] batch, int next, int end) => mailbox._cell.Discard(mailbox, batch.AsSpan(next, end - next));

        public void UnhandledOne(in Envelope<T> message) => mailbox._cell.Discard(mailbox, in message);

        public void Failed(Exception exception) => mailbox._cell.Failed(mailbox, exception);

        public void Suspended() => mailbox._cell.ResumeWhenHandled(mailbox);

        public void Completed() => mailbox._cell.Terminate(mailbox);

        public void QueueFailed(Exception exception) => mailbox._cell.QueueFailed(mailbox, exception);
    }
}
