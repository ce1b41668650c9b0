using System.Diagnostics;
using Concurrency.Messaging.Pipes;

namespace Concurrency.Messaging.Actors;

/// <summary>
/// The actor's life apart from its queue: the behaviour (recreated on restart), its supervisor, the request being handled
/// and the replies taken out of a turn, and the way from running through stopping to terminated. Its mailbox holds it in
/// place and runs it; the cell never touches the queue except to have the mailbox close it.
/// </summary>
/// <remarks>
/// <para>
/// A struct, held inline by its <see cref="Mailbox{T}"/> and used in place, never copied, as the mailbox's queue is: an idle
/// actor stays one object. The methods that need the mailbox (its name, closing its queue, scheduling its next turn) take it.
/// </para>
/// <para>
/// The fields marked "turn" are touched only by the mailbox's running turn (one at a time) or by the behaviour it runs.
/// Everything only a stopping, failing or deferring actor needs is in <see cref="Ending"/>, made on first use.
/// </para>
/// </remarks>
internal struct ActorCell<T>
{
    private const int Running = 0, Draining = 1, Discarding = 2, Terminated = 3;

    private readonly ActorSystem _system;
    private readonly Func<Actor<T>> _factory;
    private readonly ActorOptions _options; // the supervisor, throughput and full mode, read where used: one field for three
    private Actor<T> _actor;          // turn: replaced on restart
    private int _state;               // Running → Draining | Discarding (Interlocked, once) → Terminated; Discarding also from Draining after a fatal failure
    private bool _awaiting;           // turn: the last message's handler has not completed; the next turn ends it first
    private Ending? _ending;          // created on the first stop, failure, deferred reply or look at Termination (CompareExchange)

    public ActorCell(ActorSystem system, Func<Actor<T>> factory, ActorOptions options)
    {
        _system = system;
        _factory = factory;
        _options = options;
        _actor = null!; // Start, once the mailbox is constructed, before any message
    }

    /// <summary>Gets the request being handled, while it awaits a reply. Turn only.</summary>
    public AskPromise? CurrentReply { get; set; }

    public readonly ActorSystem System => _system;

    public readonly ActorOptions Options => _options;

    /// <summary>Gets the most messages a turn handles.</summary>
    public readonly int Throughput => _options.Throughput ?? _system.Throughput;

    /// <summary>Gets the behaviour that handles the next message. Turn only.</summary>
    public readonly Actor<T> Actor => _actor;

    /// <summary>Gets whether the actor still accepts messages: set false before the queue is closed.</summary>
    public bool IsAccepting => Volatile.Read(ref _state) == Running;

    public bool IsStopped => !IsAccepting;

    public bool IsDiscarding => Volatile.Read(ref _state) == Discarding;

    /// <summary>Gets whether the message just handed to the actor is still being handled (its handler awaits). Turn only.</summary>
    public readonly bool IsAwaiting => _awaiting;

    public long DiscardedCount =>
        Volatile.Read(ref _ending) is { } ending ? Interlocked.Read(ref ending.Discarded) : 0;

    /// <summary>Gets the task that completes once terminated.</summary>
    public Task Termination
    {
        get
        {
            var ending = GetEnding();

            // The turn sets Terminated before it looks for the ending: one of the two completes it.
            if (Volatile.Read(ref _state) == Terminated)
            {
                ending.Complete();
            }

            return ending.Task;
        }
    }

    /// <summary>Creates the first behaviour, answering to <paramref name="self"/>: once the mailbox is constructed, before any post.</summary>
    public void Start(LocalActorRef<T> self) => _actor = CreateActor(self);

    /// <summary>Stops accepting; the caller closes the queue if this call stopped the actor.</summary>
    /// <returns><see langword="true"/> if this call stopped the actor.</returns>
    public bool TryStop(ActorStopMode mode)
    {
        Debug.Assert(Enum.IsDefined(mode), "ActorRef.Stop refuses an unknown mode.");
        GetEnding(); // before the state: a discarding turn counts into it
        var target = mode == ActorStopMode.Discard ? Discarding : Draining;
        return Interlocked.CompareExchange(ref _state, target, Running) == Running;
    }

    /// <summary>Called by the actor after each message: a request handled without a reply fails its caller now, not at its timeout.</summary>
    public void AfterReceive(string name)
    {
        if (CurrentReply is { } unanswered)
        {
            CurrentReply = null;
            unanswered.TryFail(new InvalidOperationException(
                $"The actor '{name}' handled the request without replying: reply with Context.Reply, or take the reply with Context.DeferReply."));
        }
    }

    /// <summary>
    /// Called by an <see cref="AsyncActor{T}"/> whose handler did not complete: the turn ends after this message, without
    /// going idle, and resumes when the handler completes. Turn only.
    /// </summary>
    public void Suspend()
    {
        Debug.Assert(!_awaiting, "One message at a time: a handler cannot start while another awaits.");
        _awaiting = true;
    }

    /// <summary>Takes the reply of the request being handled, checking its type. Turn only.</summary>
    public AskPromise<TReply> TakeReply<TReply>()
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
    public DeferredReply<TReply> Defer<TReply>(AskPromise<TReply> promise, string name)
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

        promise.TryFail(new ActorStoppedException(name));
        return new DeferredReply<TReply>(promise, ending.Forget);
    }

    /// <summary>
    /// The turn's last act: the handler's completion schedules the next turn, which may start on another thread before
    /// this call returns, so nothing of the turn may be touched after it.
    /// </summary>
    public readonly void ResumeWhenHandled(Mailbox<T> mailbox)
    {
        Debug.Assert(_actor is AsyncActor<T>, "Only an async actor's handler can leave a message unfinished.");
        ((AsyncActor<T>)_actor).ScheduleWhenHandled(mailbox);
    }

    /// <summary>First in the turn after a handler that awaited: ends its message as a synchronous handler's would end.</summary>
    public void EndAwaited(Mailbox<T> mailbox)
    {
        _awaiting = false;
        try
        {
            ((AsyncActor<T>)_actor).EndHandling();
            AfterReceive(mailbox.Name);
        }
        catch (Exception ex)
        {
            Failed(mailbox, ex);
        }
    }

    /// <summary>A handler threw: its request fails, and the supervisor decides to restart, resume or stop. Turn only.</summary>
    public void Failed(Mailbox<T> mailbox, Exception exception)
    {
        var reply = CurrentReply;
        CurrentReply = null;
        reply?.TryFail(exception);

        SupervisionDirective directive;
        try
        {
            directive = _options.Supervisor?.Invoke(exception) ?? SupervisionDirective.Restart;
        }
        catch (Exception supervisorFailure)
        {
            exception = new AggregateException("The actor's handler threw, and then its supervisor threw.", exception, supervisorFailure);
            directive = SupervisionDirective.Stop;
        }

        _system.ReportFailure(new ActorFailure(mailbox.Name, exception, directive));
        if (directive == SupervisionDirective.Restart)
        {
            try
            {
                _actor = CreateActor(_actor.Self!); // the new behaviour answers to the same handle
                return;
            }
            catch (Exception factoryFailure)
            {
                exception = factoryFailure;
                _system.ReportFailure(new ActorFailure(mailbox.Name, factoryFailure, SupervisionDirective.Stop));
                directive = SupervisionDirective.Stop;
            }
        }

        if (directive == SupervisionDirective.Stop)
        {
            StopFaulted(mailbox, exception);
        }
    }

    /// <summary>
    /// The turn's last act when the queue itself threw (not a handler): the actor stops accepting and terminates, faulted
    /// with an error that says so; what the broken queue still held is lost, and no count is claimed for it.
    /// </summary>
    public void QueueFailed(Mailbox<T> mailbox, Exception exception)
    {
        var failure = new InvalidOperationException(
            $"The mailbox of actor '{mailbox.Name}' failed (its queue threw, not a handler); messages it still held were not handled. See the inner exception.",
            exception);
        _system.ReportFailure(new ActorFailure(mailbox.Name, failure, SupervisionDirective.Stop));
        StopFaulted(mailbox, failure); // later posts are refused as dead letters
        Terminate(mailbox);
    }

    /// <summary>
    /// Discarded messages are dead letters, as those told after the stop are; a discarded request's caller hears at once
    /// that the actor stopped. Turn only.
    /// </summary>
    public void Discard(Mailbox<T> mailbox, ReadOnlySpan<Slot<Envelope<T>>> envelopes)
    {
        foreach (ref readonly var slot in envelopes)
        {
            DiscardOne(mailbox, in slot.Value);
        }

        CountDiscarded(envelopes.Length);
    }

    /// <summary>One discarded message: see the batch overload. Turn only.</summary>
    public void Discard(Mailbox<T> mailbox, in Envelope<T> envelope)
    {
        DiscardOne(mailbox, in envelope);
        CountDiscarded(1);
    }

    /// <summary>The turn's last act when the queue is closed and empty: leaves the system, fails the deferred replies, completes the ending.</summary>
    public void Terminate(Mailbox<T> mailbox)
    {
        // Leave the system first: whoever sees the termination complete (it completes only once Terminated is set) must
        // also see ActorCount without this actor, as ShutdownAsync's callers do.
        _system.Remove(mailbox);
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
                promise.TryFail(new ActorStoppedException(mailbox.Name));
            }
        }

        ending?.Complete();
    }

    /// <summary>The supervisor (or a failed queue) stopped the actor: it discards what is left and terminates faulted.</summary>
    private void StopFaulted(Mailbox<T> mailbox, Exception failure)
    {
        GetEnding().Failure = failure;
        if (Interlocked.Exchange(ref _state, Discarding) == Running)
        {
            mailbox.CloseQueue();
        }
    }

    private readonly void DiscardOne(Mailbox<T> mailbox, in Envelope<T> envelope)
    {
        _system.ReportDeadLetter(new DeadLetter(mailbox.Name, envelope.Message));
        envelope.Reply?.TryFail(new ActorStoppedException(mailbox.Name));
    }

    private void CountDiscarded(int count)
    {
        // A discarding actor's ending was made before the state that says so (TryStop, StopFaulted).
        var ending = Volatile.Read(ref _ending);
        Debug.Assert(ending is not null, "An actor discards only after its ending was made.");
        Interlocked.Add(ref ending.Discarded, count);
        ActorInstruments.Count(ActorInstruments.Discarded, count);
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

    private readonly Actor<T> CreateActor(LocalActorRef<T> self)
    {
        var actor = _factory() ?? throw new InvalidOperationException($"The factory of actor '{self.Name}' returned null.");
        actor.Attach(self);
        return actor;
    }

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
}
