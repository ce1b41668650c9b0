using Concurrency.Messaging.Internal;

namespace Concurrency.Messaging.Actors;

/// <summary>
/// Spawns actors that share the .NET thread pool: an actor with mail is scheduled for a turn of up to its throughput, then
/// yields the thread; an idle actor is a few hundred bytes and no thread. Reports dead letters and handler failures, and
/// stops every actor it spawned when disposed.
/// </summary>
public sealed class ActorSystem : IAsyncDisposable
{
    private static readonly ActorOptions DefaultOptions = new(); // shared: an actor keeps its options, and a record is immutable

    private readonly Lock _gate = new();
    private readonly HashSet<IActorControl> _actors = new(ReferenceEqualityComparer.Instance); // guarded by _gate: live actors
    private readonly ReportFeed<DeadLetter> _deadLetters = new();
    private readonly ReportFeed<ActorFailure> _failures = new();
    private long _nextId;          // Interlocked
    private long _deadLetterCount; // Interlocked
    private long _failureCount;    // Interlocked
    private long _retiredHandled;  // guarded by _gate: what the terminated actors handled
    private bool _shutDown;        // guarded by _gate: no more spawns

    /// <summary>Creates an actor system.</summary>
    /// <param name="options">Options; <see langword="null"/> for the defaults.</param>
    /// <exception cref="ArgumentOutOfRangeException">The throughput is not positive, or the ask timeout is not infinite and either
    /// not positive or longer than a timer accepts (<see cref="uint.MaxValue"/> - 1 milliseconds).</exception>
    public ActorSystem(ActorSystemOptions? options = null)
    {
        options ??= new ActorSystemOptions();
        ArgumentOutOfRangeException.ThrowIfLessThan(options.Throughput, 1, "options.Throughput");
        ArgumentNullException.ThrowIfNull(options.TimeProvider, "options.TimeProvider");
        AskPromise.ThrowIfBadTimeout(options.AskTimeout, "options.AskTimeout"); // here, not at every Ask that would fail

        Throughput = options.Throughput;
        AskTimeout = options.AskTimeout;
        TimeProvider = options.TimeProvider;
        ActorInstruments.Live.Add(this);
    }

    /// <summary>
    /// Gets the messages sent to stopped actors, and those an actor discarded when it stopped (see
    /// <see cref="ActorStopMode.Discard"/>), as they happen. Subscribers are called on the sender's thread, or on the actor's
    /// turn for a discarded message, and must not throw: an exception a subscriber throws is counted in
    /// <see cref="SubscriberErrorCount"/> and dropped, so that it cannot end a turn or the process.
    /// </summary>
    public IObservable<DeadLetter> DeadLetters => _deadLetters.Observable;

    /// <summary>
    /// Gets every exception an actor's handler threw, with what its supervisor decided. Subscribers are called on the actor's
    /// turn and must not throw: an exception a subscriber throws is counted in <see cref="SubscriberErrorCount"/> and dropped,
    /// so that it cannot end the turn or the process; the actor carries on as its supervisor decided.
    /// </summary>
    public IObservable<ActorFailure> Failures => _failures.Observable;

    /// <summary>Gets how many reports a subscriber of <see cref="Failures"/> or <see cref="DeadLetters"/> threw on (each exception was dropped).</summary>
    public long SubscriberErrorCount => _failures.SubscriberErrors + _deadLetters.SubscriberErrors;

    /// <summary>Gets how many messages were sent to stopped actors.</summary>
    public long DeadLetterCount => Interlocked.Read(ref _deadLetterCount);

    /// <summary>Gets how many times an actor's handler (or factory, on restart) threw.</summary>
    public long FailureCount => Interlocked.Read(ref _failureCount);

    /// <summary>Gets how many actors are alive (spawned and not yet terminated).</summary>
    public int ActorCount
    {
        get
        {
            lock (_gate)
            {
                return _actors.Count;
            }
        }
    }

    /// <summary>Gets how many messages this system's actors handled, terminated ones included (see <see cref="ActorInstruments"/>).</summary>
    internal long HandledCount
    {
        get
        {
            lock (_gate)
            {
                var sum = _retiredHandled;
                foreach (var actor in _actors)
                {
                    sum += actor.HandledCount;
                }

                return sum;
            }
        }
    }

    internal int Throughput { get; }

    internal TimeSpan AskTimeout { get; }

    internal TimeProvider TimeProvider { get; }

    /// <summary>Creates and starts an actor.</summary>
    /// <typeparam name="T">The actor's message type.</typeparam>
    /// <param name="factory">Creates the actor: now, and again with fresh state each time its supervisor restarts it.</param>
    /// <param name="options">Options; <see langword="null"/> for the defaults.</param>
    /// <returns>The actor's reference.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="factory"/> is <see langword="null"/>.</exception>
    /// <exception cref="ArgumentOutOfRangeException">A capacity or throughput is not positive, or an enum value is unknown.</exception>
    /// <exception cref="ArgumentException">A capacity was given for a mailbox kind that is unbounded.</exception>
    /// <exception cref="ObjectDisposedException">The system was shut down.</exception>
    /// <remarks>The factory's exception, if it throws, propagates to the caller and no actor is created.</remarks>
    public ActorRef<T> Spawn<T>(Func<Actor<T>> factory, ActorOptions? options = null)
    {
        ArgumentNullException.ThrowIfNull(factory);
        options ??= DefaultOptions;
        Validate(options);

        var id = Interlocked.Increment(ref _nextId);
        LocalActorRef<T> actor = options.Mailbox switch
        {
            MailboxKind.BoundedChannel => new LocalActorRef<T, ChannelMailboxQueue<T>>(this, factory, options, id),
            MailboxKind.BoundedBatchDrain => new LocalActorRef<T, BoundedBatchDrainMailboxQueue<T>>(this, factory, options, id),
            _ => new LocalActorRef<T, BatchDrainMailboxQueue<T>>(this, factory, options, id),
        };
        actor.Start();
        lock (_gate)
        {
            if (!_shutDown)
            {
                _actors.Add(actor);
                return actor;
            }
        }

        actor.Stop(ActorStopMode.Discard);
        throw new ObjectDisposedException(nameof(ActorSystem), "The actor system was shut down; it spawns no more actors.");
    }

    /// <summary>Stops every actor and waits for all of them to terminate; spawning is refused from then on.</summary>
    /// <param name="mode">Whether the actors drain or discard their mailboxes.</param>
    /// <param name="cancellationToken">Cancels the wait, not the stop.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="mode"/> is not a defined value; nothing was stopped.</exception>
    /// <remarks>Actors that a supervisor stopped have faulted terminations; this waits for them without throwing.</remarks>
    public async Task ShutdownAsync(ActorStopMode mode = ActorStopMode.Discard, CancellationToken cancellationToken = default)
    {
        if (!Enum.IsDefined(mode))
        {
            throw new ArgumentOutOfRangeException(nameof(mode), mode, "Unknown stop mode.");
        }

        IActorControl[] actors;
        lock (_gate)
        {
            _shutDown = true;
            actors = [.. _actors];
        }

        var terminations = new Task[actors.Length];
        for (var i = 0; i < actors.Length; i++)
        {
            terminations[i] = actors[i].StopAsync(mode);
        }

        var all = Task.WhenAll(terminations);
        await all.WaitAsync(cancellationToken).ConfigureAwait(ConfigureAwaitOptions.SuppressThrowing);
        if (all.IsCompleted)
        {
            ActorInstruments.Retire(this); // every actor terminated and none can be spawned: the count is final
        }

        cancellationToken.ThrowIfCancellationRequested();
    }

    /// <summary>
    /// Shuts the system down, discarding what the mailboxes still hold (see <see cref="ShutdownAsync"/>): each discarded
    /// message is reported as a dead letter.
    /// </summary>
    public async ValueTask DisposeAsync() => await ShutdownAsync(ActorStopMode.Discard).ConfigureAwait(false);

    internal void Remove(IActorControl actor)
    {
        // The actor's turn counted what it handled before it terminated: final, and moved to the total with the removal,
        // under the lock a reader of HandledCount takes, so the sum never goes back.
        var handled = actor.HandledCount;
        lock (_gate)
        {
            if (_actors.Remove(actor))
            {
                _retiredHandled += handled;
            }
        }
    }

    internal void ReportDeadLetter(DeadLetter letter)
    {
        Interlocked.Increment(ref _deadLetterCount);
        LibraryMeter.Count(ActorInstruments.DeadLetters);
        _deadLetters.Report(letter);
    }

    internal void ReportFailure(ActorFailure failure)
    {
        Interlocked.Increment(ref _failureCount);
        LibraryMeter.Count(ActorInstruments.Failures);
        _failures.Report(failure);
    }

    private static void Validate(ActorOptions options)
    {
        if (!Enum.IsDefined(options.Mailbox))
        {
            throw new ArgumentOutOfRangeException(nameof(options), options.Mailbox, "Unknown mailbox kind.");
        }

        if (!Enum.IsDefined(options.FullMode))
        {
            throw new ArgumentOutOfRangeException(nameof(options), options.FullMode, "Unknown mailbox full mode.");
        }

        if (options.Throughput is int throughput)
        {
            ArgumentOutOfRangeException.ThrowIfLessThan(throughput, 1, "options.Throughput");
        }

        if (options.Capacity is int capacity)
        {
            if (options.Mailbox == MailboxKind.BatchDrain)
            {
                throw new ArgumentException($"A {options.Mailbox} mailbox is unbounded; leave Capacity unset or use {MailboxKind.BoundedBatchDrain}.", nameof(options));
            }

            ArgumentOutOfRangeException.ThrowIfLessThan(capacity, 1, "options.Capacity");
        }
    }
}
