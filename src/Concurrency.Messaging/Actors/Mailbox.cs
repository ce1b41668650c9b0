using System.Diagnostics;
using Concurrency.Messaging.Internal;
using Concurrency.Messaging.Pipes;

namespace Concurrency.Messaging.Actors;

/// <summary>
/// An actor's mailbox: a queue of the pipes' family whose consumer runs as turns on the .NET thread pool, run by the
/// <see cref="TurnRunner"/> as the pipes' pooled consumers are. A post that finds the actor idle schedules one turn (the
/// queue decides, see <see cref="ITurnQueue{T}"/>, so a turn is never queued twice nor missed); a turn handles up to the
/// throughput budget, then queues the next turn if more is waiting or goes idle. At most one turn runs at a time, so the
/// fields marked "turn" need no lock, and the actor handles one message at a time. Actors take the runner's run-next slot.
/// </summary>
/// <remarks>
/// A handler that returns before its work is done (<see cref="AsyncActor{T}"/>, whose <c>ReceiveAsync</c> awaits) ends
/// the turn without going idle: the queue still counts the actor as scheduled, so posts only enqueue, and nothing else is
/// handled. The turn's last act is to hang a continuation on the handler's task; when it completes, the continuation
/// schedules the next turn, which ends the handling (a failure goes to the supervisor) and goes on with the batch. The
/// handler's own code after its await is then the only code touching the actor, so the "turn" fields keep one owner.
/// </remarks>
internal abstract class Mailbox<T> : ActorRef<T>, ITurn, IActorControl
{
    private const int Running = 0, Draining = 1, Discarding = 2, Terminated = 3;

    private readonly ActorSystem _system;
    private readonly Func<Actor<T>> _factory;
    private readonly Func<Exception, SupervisionDirective>? _supervisor;
    private readonly int _throughput;
    private Actor<T> _actor;                   // turn: replaced on restart
    private TurnBatch<Envelope<T>> _batch = new(); // turn: messages taken but not yet handled
    private int _state;                        // Running → Draining | Discarding (Interlocked, once) → Terminated; Discarding also from Draining after a fatal failure
    private long _handled;                     // turn: a plain add once per turn (see TurnRunner.Run); read by anyone (Volatile)
    private Ending? _ending;                   // created on the first stop, failure, deferred reply or look at Termination (CompareExchange)
    private bool _awaiting;                    // turn: the last message's handler has not completed; the next turn ends it first

    protected Mailbox(ActorSystem system, Func<Actor<T>> factory, ActorOptions options, long id)
        : base(options.Name, id)
    {
        _system = system;
        _factory = factory;
        _supervisor = options.Supervisor;
        _throughput = options.Throughput ?? system.Throughput;
        _actor = CreateActor();
        FullMode = options.FullMode;
    }

    /// <summary>Gets the request being handled, while it awaits a reply. Turn only.</summary>
    internal AskPromise? CurrentReply { get; set; }

    protected MailboxFullMode FullMode { get; }

    /// <summary>Gets whether the actor still accepts messages: set false before the queue is closed.</summary>
    protected bool IsAccepting => Volatile.Read(ref _state) == Running;

    internal bool IsDiscarding => Volatile.Read(ref _state) == Discarding;

    /// <summary>Gets whether the message just handed to the actor is still being handled (its handler awaits). Turn only.</summary>
    internal bool IsAwaiting => _awaiting;

    public override bool IsStopped => Volatile.Read(ref _state) != Running;

    public override long DiscardedCount => Volatile.Read(ref _ending) is { } ending ? Interlocked.Read(ref ending.Discarded) : 0;

    public long HandledCount => Volatile.Read(ref _handled);

    public override Task Termination
    {
        get
        {
            var termination = GetEnding();

            // The turn sets Terminated before it looks for a TaskCompletionSource: one of the two completes it.
            if (Volatile.Read(ref _state) == Terminated)
            {
                Complete(termination);
            }

            return termination.Task;
        }
    }

    /// <summary>Offers a message to the queue without waiting.</summary>
    /// <param name="envelope">The message.</param>
    /// <param name="full">When refused: <see langword="true"/> if the queue is full, <see langword="false"/> if it is closed.</param>
    protected abstract bool TryPost(in Envelope<T> envelope, out bool full);

    /// <summary>Posts, waiting asynchronously for room; <see langword="false"/> if the queue closed first.</summary>
    protected abstract ValueTask<bool> PostWaitingAsync(Envelope<T> envelope, CancellationToken cancellationToken);

    /// <summary>Refuses further posts; the turn drains what was accepted and then finds the queue completed.</summary>
    protected abstract void CloseQueue();

    /// <summary>Runs one turn over the mailbox's queue: <see cref="RunTurn{TQueue}"/> with it, held in place.</summary>
    public abstract void RunTurn();

    public override void Tell(T message)
    {
        if (!TryPost(new Envelope<T>(message, null), out var full))
        {
            TellRefused(message, full);
        }
    }

    public override bool TryTell(T message)
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

    public override ValueTask TellAsync(T message, CancellationToken cancellationToken = default)
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

    public override ValueTask<TReply> Ask<TReply>(T message, CancellationToken cancellationToken = default) =>
        Ask<TReply>(message, _system.AskTimeout, cancellationToken);

    public override ValueTask<TReply> Ask<TReply>(T message, TimeSpan timeout, CancellationToken cancellationToken = default)
    {
        AskPromise.ThrowIfBadTimeout(timeout, nameof(timeout));

        if (cancellationToken.IsCancellationRequested)
        {
            return ValueTask.FromCanceled<TReply>(cancellationToken);
        }

        var promise = new AskPromise<TReply>();
        promise.Arm(_system.TimeProvider, timeout, cancellationToken);
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

    private protected override bool StopCore(ActorStopMode mode)
    {
        Debug.Assert(Enum.IsDefined(mode), "ActorRef.Stop refuses an unknown mode.");
        var target = mode == ActorStopMode.Discard ? Discarding : Draining;
        GetEnding(); // before the state: a discarding turn counts into it
        if (Interlocked.CompareExchange(ref _state, target, Running) != Running)
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
        if (_awaiting)
        {
            EndAwaited();
        }

        var delivery = new Delivery(this);
        TurnRunner.Run(this, ref queue, ref delivery, ref _batch, _throughput);
    }

    /// <summary>Producer side, for a queue with an <see cref="IdleFlag"/>: after a post (or the close), schedules the idle actor.</summary>
    private protected void WakeIfIdle<TQueue>(ref TQueue queue)
        where TQueue : struct, ITurnQueue<Envelope<T>>
        => TurnRunner.WakeIfIdle<Envelope<T>, TQueue>(this, ref queue, mayRunNext: true);

    /// <summary>Called by the actor after each message: a request handled without a reply fails its caller now, not at its timeout.</summary>
    internal void AfterReceive()
    {
        if (CurrentReply is { } unanswered)
        {
            CurrentReply = null;
            unanswered.TryFail(new InvalidOperationException(
                $"The actor '{Name}' handled the request without replying: reply with Context.Reply, or take the reply with Context.DeferReply."));
        }
    }

    /// <summary>
    /// Called by an <see cref="AsyncActor{T}"/> whose handler did not complete: the turn ends after this message, without
    /// going idle, and resumes when the handler completes. Turn only.
    /// </summary>
    internal void Suspend()
    {
        Debug.Assert(!_awaiting, "One message at a time: a handler cannot start while another awaits.");
        _awaiting = true;
    }

    /// <summary>Takes the reply of the request being handled, checking its type. Turn only.</summary>
    internal AskPromise<TReply> TakeReply<TReply>()
    {
        var reply = CurrentReply
            ?? throw new InvalidOperationException("The message being handled was not sent with Ask, or was already replied to.");
        if (reply is not AskPromise<TReply> typed)
        {
            throw new InvalidOperationException($"The caller asked for a reply of type {reply.ReplyType}, not {typeof(TReply)}.");
        }

        CurrentReply = null;
        return typed;
    }

    /// <summary>Keeps a reply taken out of the turn, so that it fails if the actor terminates before it is completed.</summary>
    internal DeferredReply<TReply> Defer<TReply>(AskPromise<TReply> promise)
    {
        var ending = GetEnding();
        var deferred = ending.GetDeferred();
        lock (deferred)
        {
            if (Volatile.Read(ref _state) != Terminated)
            {
                deferred.Add(promise);
                return new DeferredReply<TReply>(promise, ending.Forget);
            }
        }

        promise.TryFail(new ActorStoppedException(Name));
        return new DeferredReply<TReply>(promise, ending.Forget);
    }

    /// <summary>
    /// The turn's last act: the handler's completion schedules the next turn, which may start on another thread before
    /// this call returns, so nothing of the turn may be touched after it.
    /// </summary>
    private void ResumeWhenHandled()
    {
        Debug.Assert(_actor is AsyncActor<T>, "Only an async actor's handler can leave a message unfinished.");
        ((AsyncActor<T>)_actor).ScheduleWhenHandled(this);
    }

    /// <summary>First in the turn after a handler that awaited: ends its message as a synchronous handler's would end.</summary>
    private void EndAwaited()
    {
        _awaiting = false;
        try
        {
            ((AsyncActor<T>)_actor).EndHandling();
            AfterReceive();
        }
        catch (Exception ex)
        {
            Failed(ex);
        }
    }

    private void Failed(Exception exception)
    {
        var reply = CurrentReply;
        CurrentReply = null;
        reply?.TryFail(exception);

        SupervisionDirective directive;
        try
        {
            directive = _supervisor?.Invoke(exception) ?? SupervisionDirective.Restart;
        }
        catch (Exception supervisorFailure)
        {
            exception = new AggregateException("The actor's handler threw, and then its supervisor threw.", exception, supervisorFailure);
            directive = SupervisionDirective.Stop;
        }

        _system.ReportFailure(new ActorFailure(Name, exception, directive));
        if (directive == SupervisionDirective.Restart)
        {
            try
            {
                _actor = CreateActor();
                return;
            }
            catch (Exception factoryFailure)
            {
                exception = factoryFailure;
                _system.ReportFailure(new ActorFailure(Name, factoryFailure, SupervisionDirective.Stop));
                directive = SupervisionDirective.Stop;
            }
        }

        if (directive == SupervisionDirective.Stop)
        {
            GetEnding().Failure = exception;
            var before = Interlocked.Exchange(ref _state, Discarding);
            if (before == Running)
            {
                CloseQueue();
            }
        }
    }

    /// <summary>
    /// The turn's last act when the queue itself threw (not a handler): the actor stops accepting and terminates, faulted
    /// with an error that says so; what the broken queue still held is lost, and no count is claimed for it.
    /// </summary>
    private void QueueFailed(Exception exception)
    {
        var failure = new InvalidOperationException(
            $"The mailbox of actor '{Name}' failed (its queue threw, not a handler); messages it still held were not handled. See the inner exception.",
            exception);
        _system.ReportFailure(new ActorFailure(Name, failure, SupervisionDirective.Stop));
        GetEnding().Failure = failure;
        if (Interlocked.Exchange(ref _state, Discarding) == Running)
        {
            CloseQueue(); // later posts are refused as dead letters
        }

        Terminate();
    }

    /// <summary>
    /// A discarded message is a dead letter, as one told after the stop is; a discarded request's caller hears at once that
    /// the actor stopped. The caller counts the discard. Turn only.
    /// </summary>
    private void Discard(in Envelope<T> envelope)
    {
        ReportDeadLetter(envelope.Message);
        envelope.Reply?.TryFail(new ActorStoppedException(Name));
    }

    private void Terminate()
    {
        // Leave the system first: whoever sees the termination complete (it completes only once Terminated is set) must
        // also see ActorCount without this actor, as ShutdownAsync's callers do.
        _system.Remove(this);
        Interlocked.Exchange(ref _state, Terminated);
        var ending = Volatile.Read(ref _ending);
        if (ending?.Deferred is { } deferred)
        {
            AskPromise[] pending;
            lock (deferred)
            {
                pending = [.. deferred];
                deferred.Clear();
            }

            foreach (var promise in pending)
            {
                promise.TryFail(new ActorStoppedException(Name));
            }
        }

        if (ending is not null)
        {
            Complete(ending);
        }
    }

    private Ending GetEnding()
    {
        var ending = Volatile.Read(ref _ending);
        if (ending is null)
        {
            var created = new Ending();
            ending = Interlocked.CompareExchange(ref _ending, created, null) ?? created;
        }

        return ending;
    }

    private static void Complete(Ending termination)
    {
        if (termination.Failure is { } failure)
        {
            termination.TrySetException(failure);
        }
        else
        {
            termination.TrySetResult();
        }
    }

    private Actor<T> CreateActor()
    {
        var actor = _factory() ?? throw new InvalidOperationException($"The factory of actor '{Name}' returned null.");
        actor.Attach(this);
        return actor;
    }

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

    /// <summary>The ending of a discarding actor: made before the state that says so (see StopCore, Failed, QueueFailed).</summary>
    private Ending DiscardingEnding
    {
        get
        {
            var ending = Volatile.Read(ref _ending);
            Debug.Assert(ending is not null, "An actor discards only after its ending was made.");
            return ending;
        }
    }

    private void ReportDeadLetter(T message) => _system.ReportDeadLetter(new DeadLetter(Name, message));

    /// <summary>
    /// What only a stopping, failing or deferring actor needs, made on first use so that an idle actor pays one null field
    /// for all of it: the termination task (the failure rides on it), the count of discarded messages, and the replies
    /// taken out of a turn.
    /// </summary>
    private sealed class Ending() : TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously)
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
    }

    /// <summary>
    /// The actor as the <see cref="TurnRunner"/>'s owner: messages go to the actor's behaviour, a throw to its supervisor;
    /// once it discards, messages are dead letters; an async handler that awaits suspends the turn.
    /// </summary>
    private readonly struct Delivery(Mailbox<T> mailbox) : ITurnOwner<Envelope<T>>
    {
        public bool LooksBeforeIdle => false; // an actor's partner is usually woken through the run-next slot, not spinning

        public bool IsStopping => mailbox.IsDiscarding;

        public bool IsSuspended => mailbox._awaiting;

        public void Deliver(Slot<Envelope<T>>[] batch, ref int next, int end) => mailbox._actor.ReceiveBatch(mailbox, batch, ref next, end);

        public void DeliverOne(in Envelope<T> message) => mailbox._actor.ReceiveOne(mailbox, in message);

        public void Handled(int count) => Volatile.Write(ref mailbox._handled, mailbox._handled + count); // one turn at a time: one writer

        public void Unhandled(Slot<Envelope<T>>[] batch, int next, int end)
        {
            for (var i = next; i < end; i++)
            {
                mailbox.Discard(in batch[i].Value);
            }

            Interlocked.Add(ref mailbox.DiscardingEnding.Discarded, end - next);
            ActorInstruments.Count(ActorInstruments.Discarded, end - next);
        }

        public void UnhandledOne(in Envelope<T> message)
        {
            mailbox.Discard(in message);
            Interlocked.Increment(ref mailbox.DiscardingEnding.Discarded);
            ActorInstruments.Count(ActorInstruments.Discarded);
        }

        public void Failed(Exception exception) => mailbox.Failed(exception);

        public void Suspended() => mailbox.ResumeWhenHandled();

        public void Completed() => mailbox.Terminate();

        public void QueueFailed(Exception exception) => mailbox.QueueFailed(exception);
    }
}
