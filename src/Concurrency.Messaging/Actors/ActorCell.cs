using System.Diagnostics;
using System.Runtime.CompilerServices;
using Concurrency.Messaging.Internal;
using Concurrency.Messaging.Pipes;

namespace Concurrency.Messaging.Actors;

/// <summary>
/// The actor's life apart from its queue: the behaviour (recreated on restart), its supervisor, the request being handled
/// and the replies taken out of a turn, and the way from running through stopping to terminated. Its mailbox's turn hands
/// it messages and it hands them to the behaviour; the behaviour reaches it through its <see cref="ActorContext{T}"/>;
/// the address reads its state and stops it. It never touches the queue: where its supervisor stops the actor, it says so,
/// and the turn closes the queue.
/// </summary>
/// <remarks>
/// <para>
/// An object of its own, not a struct inside the mailbox, because the mailbox is generic over its queue and the behaviour's
/// context and the address must reach the cell without knowing the queue. A message costs no extra load for it: the turn
/// carries the cell beside the mailbox, and the behaviour holds it in its context.
/// </para>
/// <para>
/// The fields marked "turn" are touched only by the mailbox's running turn (one at a time) or by the behaviour it runs.
/// Everything only a stopping, failing or deferring actor needs is in <see cref="ActorEnding"/>, made on first use.
/// </para>
/// </remarks>
internal sealed class ActorCell<T>
{
    private const int Running = 0, Draining = 1, Discarding = 2, Terminated = 3;

    private readonly ActorSystem _system;
    private readonly Func<Actor<T>> _factory;
    private readonly ActorOptions _options;  // the supervisor, throughput and full mode, read where used: one field for three
    private readonly LocalActorRef<T> _self; // the address the behaviour answers to, and the system knows the actor by
    private readonly long _id;               // the system's number for the actor, for a name made up on demand
    private string? _name;                   // given, or made up on first request (a race makes the same string twice, harmlessly)
    private Actor<T> _actor = null!;         // turn: replaced on restart; Start makes the first, before any post
    private int _state;                      // Running → Draining | Discarding (Interlocked, once) → Terminated; Discarding also from Draining after a fatal failure
    private bool _awaiting;                  // turn: the last message's handler has not completed; the next turn ends it first
    private ActorEnding? _ending;            // created on the first stop, failure, deferred reply or look at Termination (CompareExchange)

    /// <summary>Makes the cell of the actor whose address is <paramref name="self"/>; <see cref="Start"/> makes its behaviour.</summary>
    public ActorCell(ActorSystem system, Func<Actor<T>> factory, ActorOptions options, long id, LocalActorRef<T> self)
    {
        _system = system;
        _factory = factory;
        _options = options;
        _id = id;
        _name = options.Name;
        _self = self;
    }

    /// <summary>Gets the request being handled, while it awaits a reply. Turn only.</summary>
    public AskPromise? CurrentReply { get; set; }

    /// <summary>Gets the actor's name (see <see cref="ActorRef{T}.Name"/>).</summary>
    public string Name => _name ??= $"actor-{_id}";

    /// <summary>Gets the address the behaviour answers to, across restarts.</summary>
    public LocalActorRef<T> Self => _self;

    public ActorSystem System => _system;

    public MailboxFullMode FullMode => _options.FullMode;

    /// <summary>Gets the most messages a turn handles.</summary>
    public int Throughput => _options.Throughput ?? _system.Throughput;

    /// <summary>Gets whether the actor still accepts messages: set false before the queue is closed.</summary>
    public bool IsAccepting => Volatile.Read(ref _state) == Running;

    public bool IsStopped => !IsAccepting;

    public bool IsDiscarding => Volatile.Read(ref _state) == Discarding;

    /// <summary>Gets whether the message just handed to the actor is still being handled (its handler awaits). Turn only.</summary>
    public bool IsAwaiting => _awaiting;

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

    /// <summary>Creates the first behaviour: once the address is made, before any post. The factory's exception propagates.</summary>
    public void Start() => _actor = CreateActor();

    /// <summary>Stops accepting; the caller closes the queue if this call stopped the actor.</summary>
    /// <returns><see langword="true"/> if this call stopped the actor.</returns>
    public bool TryStop(ActorStopMode mode)
    {
        Debug.Assert(Enum.IsDefined(mode), "ActorRef.Stop refuses an unknown mode.");
        GetEnding(); // before the state: a discarding turn counts into it
        var target = mode == ActorStopMode.Discard ? Discarding : Draining;
        return Interlocked.CompareExchange(ref _state, target, Running) == Running;
    }

    /// <summary>Hands <c>batch[next..end)</c> to the behaviour (see <see cref="ITurnOwner{T}.Deliver"/>). Turn only.</summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)] // the batch path, runner to behaviour: see Actor<T>.ReceiveBatch
    public void Deliver(Slot<Envelope<T>>[] batch, ref int next, int end) => _actor.ReceiveBatch(batch, ref next, end);

    /// <summary>Hands one message to the behaviour. Turn only.</summary>
    public void DeliverOne(in Envelope<T> envelope) => _actor.ReceiveOne(in envelope);

    /// <summary>
    /// Called by the behaviour after its handler returned: <see langword="false"/> if the handler awaits (the turn must
    /// end, and the next one finishes the message); else a request handled without a reply fails its caller now, not at
    /// its timeout. Turn only.
    /// </summary>
    public bool EndMessage()
    {
        if (_awaiting)
        {
            return false;
        }

        AfterReceive();
        return true;
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
    public DeferredReply<TReply> Defer<TReply>(AskPromise<TReply> promise)
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
    /// The turn's last act when the handler awaits: its completion schedules <paramref name="next"/>, which may start on
    /// another thread before this call returns, so nothing of the turn may be touched after it.
    /// </summary>
    public void ResumeWhenHandled(ITurn next)
    {
        Debug.Assert(_actor is AsyncActor<T>, "Only an async actor's handler can leave a message unfinished.");
        ((AsyncActor<T>)_actor).ScheduleWhenHandled(next);
    }

    /// <summary>First in the turn after a handler that awaited: ends its message as a synchronous handler's would end.</summary>
    /// <returns><see langword="true"/> if it failed and the supervisor stopped the actor: the caller closes its queue.</returns>
    public bool EndAwaited()
    {
        _awaiting = false;
        try
        {
            ((AsyncActor<T>)_actor).EndHandling();
            AfterReceive();
            return false;
        }
        catch (Exception ex)
        {
            return Failed(ex);
        }
    }

    /// <summary>A handler threw: its request fails, and the supervisor decides to restart, resume or stop. Turn only.</summary>
    /// <returns><see langword="true"/> if the supervisor stopped the actor: the caller closes its queue.</returns>
    public bool Failed(Exception exception)
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

        _system.ReportFailure(new ActorFailure(Name, exception, directive));
        if (directive == SupervisionDirective.Restart)
        {
            try
            {
                _actor = CreateActor(); // the new behaviour answers to the same address
                return false;
            }
            catch (Exception factoryFailure)
            {
                exception = factoryFailure;
                _system.ReportFailure(new ActorFailure(Name, factoryFailure, SupervisionDirective.Stop));
                directive = SupervisionDirective.Stop;
            }
        }

        return directive == SupervisionDirective.Stop && StopFaulted(exception);
    }

    /// <summary>
    /// When the queue itself threw (not a handler): the actor stops accepting, to terminate faulted with an error that
    /// says so; what the broken queue still held is lost, and no count is claimed for it. The caller then terminates it.
    /// </summary>
    /// <returns><see langword="true"/> if this stopped the actor: the caller closes its queue, so that later posts are dead letters.</returns>
    public bool QueueFailed(Exception exception)
    {
        var failure = new InvalidOperationException(
            $"The mailbox of actor '{Name}' failed (its queue threw, not a handler); messages it still held were not handled. See the inner exception.",
            exception);
        _system.ReportFailure(new ActorFailure(Name, failure, SupervisionDirective.Stop));
        return StopFaulted(failure);
    }

    /// <summary>
    /// Discarded messages are dead letters, as those told after the stop are; a discarded request's caller hears at once
    /// that the actor stopped. Turn only.
    /// </summary>
    public void Discard(ReadOnlySpan<Slot<Envelope<T>>> envelopes)
    {
        foreach (ref readonly var slot in envelopes)
        {
            DiscardOne(in slot.Value);
        }

        CountDiscarded(envelopes.Length);
    }

    /// <summary>One discarded message: see the batch overload. Turn only.</summary>
    public void Discard(in Envelope<T> envelope)
    {
        DiscardOne(in envelope);
        CountDiscarded(1);
    }

    /// <summary>The turn's last act when the queue is closed and empty: leaves the system, fails the deferred replies, completes the ending.</summary>
    public void Terminate()
    {
        // Leave the system first: whoever sees the termination complete (it completes only once Terminated is set) must
        // also see ActorCount without this actor, as ShutdownAsync's callers do.
        _system.Remove(_self);
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

        ending?.Complete();
    }

    /// <summary>A request handled without a reply fails its caller now, not at its timeout. Turn only.</summary>
    private void AfterReceive()
    {
        if (CurrentReply is { } unanswered)
        {
            CurrentReply = null;
            unanswered.TryFail(new InvalidOperationException(
                $"The actor '{Name}' handled the request without replying: reply with Context.Reply, or take the reply with Context.DeferReply."));
        }
    }

    /// <summary>The supervisor (or a failed queue) stopped the actor: it discards what is left and terminates faulted.</summary>
    /// <returns><see langword="true"/> if the actor was accepting until now: the caller closes its queue.</returns>
    private bool StopFaulted(Exception failure)
    {
        GetEnding().Failure = failure;
        return Interlocked.Exchange(ref _state, Discarding) == Running;
    }

    private void DiscardOne(in Envelope<T> envelope)
    {
        _system.ReportDeadLetter(new DeadLetter(Name, envelope.Message));
        envelope.Reply?.TryFail(new ActorStoppedException(Name));
    }

    private void CountDiscarded(int count)
    {
        // A discarding actor's ending was made before the state that says so (TryStop, StopFaulted).
        var ending = Volatile.Read(ref _ending);
        Debug.Assert(ending is not null, "An actor discards only after its ending was made.");
        Interlocked.Add(ref ending.Discarded, count);
        LibraryMeter.Count(ActorInstruments.Discarded, count);
    }

    private ActorEnding GetEnding()
    {
        var ending = Volatile.Read(ref _ending);
        if (ending is null)
        {
            var created = new ActorEnding();
            ending = Interlocked.CompareExchange(ref _ending, created, null) ?? created;
        }

        return ending;
    }

    private Actor<T> CreateActor()
    {
        var actor = _factory() ?? throw new InvalidOperationException($"The factory of actor '{Name}' returned null.");
        actor.Attach(new ActorContext<T>(this));
        return actor;
    }
}
