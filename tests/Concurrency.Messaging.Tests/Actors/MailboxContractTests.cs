using System.Collections.Concurrent;
using System.Diagnostics;
using Concurrency.Messaging.Tests.Pipes;

namespace Concurrency.Messaging.Tests.Actors;

/// <summary>
/// The behaviour every actor promises, whatever queue its mailbox sits on. Each mailbox kind runs this whole suite through
/// a one-line subclass. Timing is made deterministic with a <see cref="FakeTimeProvider"/> (an Ask can only time out when
/// the test moves the clock) and a <see cref="HandlerGate"/> (the actor is held inside a message while the test fills its
/// mailbox). A subclass may run every handler as an async one that awaits first, so the whole contract also holds for
/// handlers that give their thread back mid-message.
/// </summary>
public abstract class MailboxContractTests
{
    private static readonly TimeSpan AskTimeout = TimeSpan.FromSeconds(5);

    protected abstract MailboxKind Kind { get; }

    /// <summary>Gets whether each handler is an <see cref="AsyncActor{T}"/>'s that awaits before it runs (see <see cref="YieldingActor{T}"/>).</summary>
    protected virtual bool AwaitInHandler => false;

    private ActorOptions Options => new() { Mailbox = Kind };

    private static CancellationToken Cancellation => TestContext.Current.CancellationToken;

    [Fact]
    public async Task Tell_ConcurrentSenders_NothingLostAndEachSendersOrderKept()
    {
        const int senders = 4, perSender = 10_000;
        await using var system = new ActorSystem();
        var log = new DeliveryLog(senders, perSender);
        var actor = Spawn<long>(system, (_, m) => log.Record(m));

        await ProducerGroup.TellAsync(actor, senders, perSender);
        await actor.StopAsync(ActorStopMode.Drain, Cancellation).DefaultTimeout();

        log.AssertExactlyOnceInOrder(senders, perSender);
    }

    [Fact]
    public async Task Receive_ConcurrentSendersAndThroughputOne_NeverTwoMessagesAtOnce()
    {
        const int senders = 4, perSender = 5_000;
        await using var system = new ActorSystem();
        int inside = 0, overlaps = 0, handled = 0;
        var actor = Spawn<int>(
            system,
            (_, _) =>
            {
                if (Interlocked.Increment(ref inside) != 1)
                {
                    Interlocked.Increment(ref overlaps);
                }

                Thread.SpinWait(20);
                handled++; // deliberately not atomic: two handlers at once would also lose increments
                Interlocked.Decrement(ref inside);
            },
            Options with { Throughput = 1 });

        await Task.WhenAll(Enumerable.Range(0, senders).Select(_ => Task.Run(async () =>
        {
            for (var i = 0; i < perSender; i++)
            {
                await actor.TellAsync(i, Cancellation);
            }
        }))).DefaultTimeout();
        await actor.StopAsync(ActorStopMode.Drain, Cancellation).DefaultTimeout();

        Assert.Equal(0, overlaps);
        Assert.Equal(senders * perSender, handled);
    }

    [Fact]
    public async Task Tell_AfterStop_DeadLetterCountedAndReported()
    {
        await using var system = new ActorSystem();
        var letters = new ConcurrentQueue<DeadLetter>();
        using var subscription = system.DeadLetters.Subscribe(letters.Enqueue);
        var actor = Spawn<int>(system, (_, _) => { }, Options with { Name = "stopped" });

        Assert.True(actor.Stop());
        actor.Tell(1);
        Assert.False(actor.TryTell(2));
        await actor.TellAsync(3, Cancellation);
        await Assert.ThrowsAsync<ActorStoppedException>(() => actor.Ask<int>(4, Cancellation).AsTask().DefaultTimeout());
        await actor.Termination.DefaultTimeout();

        Assert.True(actor.IsStopped);
        Assert.Equal(4, system.DeadLetterCount);
        Assert.Equal([1, 2, 3, 4], letters.Select(l => (int)l.Message!));
        Assert.All(letters, l => Assert.Equal("stopped", l.Recipient));
    }

    [Fact]
    public async Task Stop_Drain_HandlesEverythingAcceptedBeforeTheStop()
    {
        await using var system = new ActorSystem();
        using var gate = new HandlerGate();
        var handled = new List<int>();
        var actor = Spawn<int>(system, gate.HoldingZero((_, m) => handled.Add(m)));

        await gate.HoldAsync(actor, 0);
        for (var i = 1; i <= 100; i++)
        {
            actor.Tell(i);
        }

        Assert.True(actor.Stop(ActorStopMode.Drain));
        actor.Tell(101);
        Assert.False(actor.Termination.IsCompleted);
        gate.Open();
        await actor.Termination.DefaultTimeout();

        Assert.Equal(Enumerable.Range(0, 101), handled);
        Assert.Equal(0, actor.DiscardedCount);
        Assert.Equal(1, system.DeadLetterCount);
    }

    [Fact]
    public async Task Stop_Discard_CountsWhatWaitedAndFailsItsAsksWithoutWaitingForTheirTimeout()
    {
        // The clock never moves: an Ask can end only by a reply or by the discard.
        await using var system = new ActorSystem(new ActorSystemOptions { TimeProvider = new FakeTimeProvider() });
        using var gate = new HandlerGate();
        var handled = new List<int>();
        var actor = Spawn<int>(system, gate.HoldingZero((context, m) =>
        {
            handled.Add(m);
            if (context.HasPendingReply)
            {
                context.Reply(m);
            }
        }));

        await gate.HoldAsync(actor, 0);
        for (var i = 1; i <= 10; i++)
        {
            actor.Tell(i);
        }

        var ask = actor.Ask<int>(11, Cancellation);
        Assert.True(actor.Stop(ActorStopMode.Discard));
        gate.Open();

        await Assert.ThrowsAsync<ActorStoppedException>(() => ask.AsTask().DefaultTimeout());
        await actor.Termination.DefaultTimeout();
        Assert.Equal([0], handled);
        Assert.Equal(11, actor.DiscardedCount);
        Assert.Equal(11, system.DeadLetterCount); // each discarded message is a dead letter
    }

    [Fact]
    public async Task ContextStop_InsideHandler_TerminatesAfterTheCurrentMessage()
    {
        await using var system = new ActorSystem();
        using var gate = new HandlerGate();
        var handled = new List<int>();
        var actor = Spawn<int>(system, gate.HoldingZero((context, m) =>
        {
            if (m == 0)
            {
                context.Stop();
            }

            handled.Add(m);
        }));

        await gate.HoldAsync(actor, 0);
        for (var i = 1; i <= 5; i++)
        {
            actor.Tell(i);
        }

        gate.Open();
        await actor.Termination.DefaultTimeout();

        Assert.Equal([0], handled);
        Assert.Equal(5, actor.DiscardedCount);
        Assert.True(actor.IsStopped);
    }

    [Fact]
    public async Task Stop_Twice_SecondReturnsFalseAndTerminationCompletes()
    {
        await using var system = new ActorSystem();
        var handled = 0;
        var actor = Spawn<int>(system, (_, _) => handled++);
        var requestedBefore = actor.Termination;
        actor.Tell(1);

        Assert.True(actor.Stop());
        Assert.False(actor.Stop(ActorStopMode.Discard));
        await requestedBefore.DefaultTimeout();
        await actor.Termination.DefaultTimeout();
        await actor.StopAsync(ActorStopMode.Drain, Cancellation).DefaultTimeout();

        Assert.True(requestedBefore.IsCompletedSuccessfully);
        Assert.Equal(1, handled);
        Assert.Equal(0, actor.DiscardedCount);
    }

    [Fact]
    public async Task Ask_Request_ReturnsTheReply()
    {
        await using var system = new ActorSystem();
        var actor = Spawn<int>(system, (context, m) => context.Reply(m * 2));

        Assert.Equal(42, await actor.Ask<int>(21, Cancellation).AsTask().DefaultTimeout());
        Assert.Equal(84, await actor.Ask<int>(42, Timeout.InfiniteTimeSpan, Cancellation).AsTask().DefaultTimeout());
    }

    [Fact]
    public async Task Ask_NoReplyWithinTimeout_ThrowsTimeoutWhenTheClockPassesIt()
    {
        var time = new FakeTimeProvider();
        await using var system = new ActorSystem(new ActorSystemOptions { TimeProvider = time });
        var taken = new TaskCompletionSource<DeferredReply<int>>(TaskCreationOptions.RunContinuationsAsynchronously);
        var actor = Spawn<int>(system, (context, _) => taken.SetResult(context.DeferReply<int>()));

        var ask = actor.Ask<int>(1, AskTimeout, Cancellation);
        var deferred = await taken.Task.DefaultTimeout();
        time.Advance(AskTimeout - TimeSpan.FromTicks(1));
        Assert.False(ask.IsCompleted);
        time.Advance(TimeSpan.FromTicks(1));

        Assert.True(ask.IsCompleted); // the fake clock runs the timer inside Advance
        await Assert.ThrowsAsync<TimeoutException>(() => ask.AsTask().DefaultTimeout());
        Assert.False(deferred.TryReply(2));
    }

    [Fact]
    public async Task Ask_ActorBusyPastTheTimeout_TimesOutAndTheLateReplyIsIgnored()
    {
        var time = new FakeTimeProvider();
        await using var system = new ActorSystem(new ActorSystemOptions { TimeProvider = time });
        using var gate = new HandlerGate();
        var actor = Spawn<int>(system, gate.HoldingZero((context, m) =>
        {
            if (context.HasPendingReply)
            {
                context.Reply(m);
            }
        }));

        await gate.HoldAsync(actor, 0);
        var ask = actor.Ask<int>(1, AskTimeout, Cancellation);
        time.Advance(AskTimeout);
        await Assert.ThrowsAsync<TimeoutException>(() => ask.AsTask().DefaultTimeout());
        gate.Open();

        Assert.Equal(2, await actor.Ask<int>(2, Timeout.InfiniteTimeSpan, Cancellation).AsTask().DefaultTimeout());
        Assert.Equal(0, system.FailureCount);
    }

    [Fact]
    public async Task Ask_Cancelled_ThrowsOperationCanceled()
    {
        await using var system = new ActorSystem(new ActorSystemOptions { TimeProvider = new FakeTimeProvider() });
        var taken = new TaskCompletionSource<DeferredReply<int>>(TaskCreationOptions.RunContinuationsAsynchronously);
        var actor = Spawn<int>(system, (context, _) => taken.SetResult(context.DeferReply<int>()));
        using var cancel = CancellationTokenSource.CreateLinkedTokenSource(Cancellation);

        var ask = actor.Ask<int>(1, cancel.Token);
        var deferred = await taken.Task.DefaultTimeout();
        await cancel.CancelAsync();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => ask.AsTask().DefaultTimeout());
        Assert.False(deferred.TryReply(2));
    }

    [Fact]
    public async Task Ask_AlreadyCancelled_ThrowsAndSendsNothing()
    {
        await using var system = new ActorSystem();
        var handled = 0;
        var actor = Spawn<int>(system, (_, _) => handled++);
        using var cancelled = new CancellationTokenSource();
        await cancelled.CancelAsync();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => actor.Ask<int>(1, cancelled.Token).AsTask().DefaultTimeout());
        await actor.StopAsync(ActorStopMode.Drain, Cancellation).DefaultTimeout();

        Assert.Equal(0, handled);
    }

    [Fact]
    public async Task Ask_HandledWithoutReply_FailsWithInvalidOperationAtOnce()
    {
        // The clock never moves, so only the actor's "handled without replying" can end the Ask.
        await using var system = new ActorSystem(new ActorSystemOptions { TimeProvider = new FakeTimeProvider() });
        var actor = Spawn<int>(system, (_, _) => { });

        await Assert.ThrowsAsync<InvalidOperationException>(() => actor.Ask<int>(1, Cancellation).AsTask().DefaultTimeout());
    }

    [Fact]
    public async Task Reply_OfAnotherTypeThanAsked_CallerGetsInvalidOperationAndFailureReported()
    {
        await using var system = new ActorSystem();
        var actor = Spawn<int>(system, (context, m) =>
        {
            if (m == 0)
            {
                context.Reply("not an int");
            }
            else
            {
                context.Reply(m);
            }
        });

        await Assert.ThrowsAsync<InvalidOperationException>(() => actor.Ask<int>(0, Cancellation).AsTask().DefaultTimeout());
        Assert.Equal(1, await actor.Ask<int>(1, Cancellation).AsTask().DefaultTimeout());

        Assert.Equal(1, system.FailureCount);
    }

    [Fact]
    public async Task DeferReply_RepliedFromAnotherThread_CallerGetsTheReply()
    {
        await using var system = new ActorSystem();
        var taken = new TaskCompletionSource<DeferredReply<int>>(TaskCreationOptions.RunContinuationsAsynchronously);
        var actor = Spawn<int>(system, (context, _) => taken.SetResult(context.DeferReply<int>()));

        var ask = actor.Ask<int>(1, Cancellation);
        var deferred = await taken.Task.DefaultTimeout();

        Assert.True(deferred.TryReply(7));
        Assert.Equal(7, await ask.AsTask().DefaultTimeout());
        Assert.False(deferred.TryReply(8));
    }

    [Fact]
    public async Task DeferReply_ActorStopsBeforeReplying_CallerGetsActorStopped()
    {
        await using var system = new ActorSystem(new ActorSystemOptions { TimeProvider = new FakeTimeProvider() });
        var taken = new TaskCompletionSource<DeferredReply<int>>(TaskCreationOptions.RunContinuationsAsynchronously);
        var actor = Spawn<int>(system, (context, _) => taken.SetResult(context.DeferReply<int>()));

        var ask = actor.Ask<int>(1, Cancellation);
        var deferred = await taken.Task.DefaultTimeout();
        actor.Stop();

        await Assert.ThrowsAsync<ActorStoppedException>(() => ask.AsTask().DefaultTimeout());
        await actor.Termination.DefaultTimeout();
        Assert.False(deferred.TryReply(2));
    }

    [Theory]
    [InlineData(SupervisionDirective.Resume, 3, 1)]  // the same actor goes on: 1 + 1 + 1, made once
    [InlineData(SupervisionDirective.Restart, 1, 2)] // a fresh actor from the factory after the failure: the last 1 only
    public async Task Supervisor_ResumeKeepsTheActorsState_RestartGivesAFreshActorFromTheFactory(SupervisionDirective directive, int count, int made)
    {
        await using var system = new ActorSystem();
        var created = 0;
        var actor = system.Spawn(Counter(new InvalidOperationException("boom"), () => created++), Options with { Supervisor = _ => directive });

        actor.Tell(1);
        actor.Tell(1);
        actor.Tell(-1);
        actor.Tell(1);

        Assert.Equal(count, await actor.Ask<int>(0, Cancellation).AsTask().DefaultTimeout());
        Assert.Equal(made, created);
    }

    [Fact]
    public async Task Supervisor_Default_Restarts()
    {
        await using var system = new ActorSystem();
        var created = 0;
        var actor = system.Spawn(Counter(new InvalidOperationException("boom"), () => created++), Options);

        actor.Tell(5);
        actor.Tell(-1);

        Assert.Equal(0, await actor.Ask<int>(0, Cancellation).AsTask().DefaultTimeout());
        Assert.Equal(2, created);
    }

    [Fact]
    public async Task Supervisor_Stop_FaultsTerminationWithTheHandlersExceptionAndDiscardsTheRest()
    {
        await using var system = new ActorSystem(new ActorSystemOptions { TimeProvider = new FakeTimeProvider() });
        using var gate = new HandlerGate();
        var boom = new InvalidOperationException("boom");
        var handled = new List<int>();
        var actor = Spawn<int>(
            system,
            gate.HoldingZero((_, m) =>
            {
                if (m == 0)
                {
                    throw boom;
                }

                handled.Add(m);
            }),
            Options with { Supervisor = _ => SupervisionDirective.Stop });

        await gate.HoldAsync(actor, 0);
        for (var i = 1; i <= 5; i++)
        {
            actor.Tell(i);
        }

        var ask = actor.Ask<int>(6, Cancellation);
        gate.Open();

        Assert.Same(boom, await Assert.ThrowsAsync<InvalidOperationException>(() => actor.Termination.DefaultTimeout()));
        await Assert.ThrowsAsync<ActorStoppedException>(() => ask.AsTask().DefaultTimeout());
        Assert.Empty(handled);
        Assert.Equal(6, actor.DiscardedCount);
        Assert.Equal(6, system.DeadLetterCount); // what it discarded is dead letters too
        Assert.True(actor.IsStopped);
        actor.Tell(7);
        Assert.Equal(7, system.DeadLetterCount);
    }

    [Fact]
    public async Task Ask_HandlerThrows_CallerGetsTheHandlersException()
    {
        await using var system = new ActorSystem();
        var boom = new InvalidOperationException("boom");
        var actor = system.Spawn(Counter(boom, () => { }), Options with { Supervisor = _ => SupervisionDirective.Resume });

        Assert.Same(boom, await Assert.ThrowsAsync<InvalidOperationException>(() => actor.Ask<int>(-1, Cancellation).AsTask().DefaultTimeout()));
        Assert.Equal(0, await actor.Ask<int>(0, Cancellation).AsTask().DefaultTimeout());
    }

    [Fact]
    public async Task Failures_HandlerThrows_ReportedWithTheSupervisorsDirective()
    {
        await using var system = new ActorSystem();
        using var failures = new FailureLog(system);
        var boom = new InvalidOperationException("boom");
        var actor = system.Spawn(Counter(boom, () => { }), Options with { Name = "counter", Supervisor = _ => SupervisionDirective.Resume });

        actor.Tell(-1);
        await actor.Ask<int>(0, Cancellation).AsTask().DefaultTimeout(); // handled after the failure was reported

        var failure = Assert.Single(failures);
        Assert.Equal(new ActorFailure("counter", boom, SupervisionDirective.Resume), failure);
        Assert.Equal(1, system.FailureCount);
    }

    [Fact]
    public async Task Supervisor_Throws_StopsTheActorWithBothExceptions()
    {
        await using var system = new ActorSystem();
        using var failures = new FailureLog(system);
        var boom = new InvalidOperationException("boom");
        var supervisorFailure = new InvalidOperationException("supervisor");
        var actor = system.Spawn(Counter(boom, () => { }), Options with { Supervisor = _ => throw supervisorFailure });

        actor.Tell(-1);
        var fault = await Assert.ThrowsAsync<AggregateException>(() => actor.Termination.DefaultTimeout());

        Assert.Equal([boom, supervisorFailure], fault.InnerExceptions);
        Assert.Equal(SupervisionDirective.Stop, Assert.Single(failures).Directive);
        Assert.True(actor.IsStopped);
    }

    [Fact]
    public async Task Spawn_TenThousandActors_EveryMessageHandledWithoutAThreadPerActor()
    {
        const int actors = 10_000, messages = 3;
        var system = new ActorSystem();
        var handled = 0;
        var allHandled = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var threadsBefore = ProcessThreads();

        var refs = new ActorRef<int>[actors];
        for (var i = 0; i < actors; i++)
        {
            refs[i] = Spawn<int>(system, (_, _) =>
            {
                if (Interlocked.Increment(ref handled) == actors * messages)
                {
                    allHandled.SetResult();
                }
            });
        }

        foreach (var actor in refs)
        {
            for (var m = 0; m < messages; m++)
            {
                actor.Tell(m);
            }
        }

        await allHandled.Task.DefaultTimeout();
        var threadsWhileAlive = ProcessThreads();
        Assert.Equal(actors, system.ActorCount);

        await system.DisposeAsync().AsTask().DefaultTimeout();

        // Other tests run alongside and the pool may add a few threads; a thread per actor would add ten thousand.
        Assert.True(threadsWhileAlive - threadsBefore < actors / 10, $"threads grew from {threadsBefore} to {threadsWhileAlive} for {actors} actors");
        Assert.Equal(0, system.ActorCount);
        Assert.All(refs, r => Assert.True(r.Termination.IsCompletedSuccessfully));
        Assert.Throws<ObjectDisposedException>(() => Spawn<int>(system, (_, _) => { }));
    }

    [Fact]
    public async Task ShutdownAsync_Drain_EveryActorHandlesItsMailAndTerminates()
    {
        const int actors = 100, messages = 10;
        var system = new ActorSystem();
        var handled = 0;
        var refs = Enumerable.Range(0, actors).Select(_ => Spawn<int>(system, (_, _) => Interlocked.Increment(ref handled))).ToArray();
        foreach (var actor in refs)
        {
            for (var m = 0; m < messages; m++)
            {
                actor.Tell(m);
            }
        }

        await system.ShutdownAsync(ActorStopMode.Drain, Cancellation).DefaultTimeout();

        Assert.Equal(actors * messages, Volatile.Read(ref handled));
        Assert.Equal(0, system.ActorCount);
        Assert.All(refs, r => Assert.True(r.Termination.IsCompletedSuccessfully));
        Assert.Throws<ObjectDisposedException>(() => Spawn<int>(system, (_, _) => { }));
        await system.DisposeAsync().AsTask().DefaultTimeout();
    }

    [Fact]
    public async Task Spawn_BadArguments_ThrowClearly()
    {
        await using var system = new ActorSystem();

        Assert.Throws<ArgumentNullException>(() => system.Spawn<int>(null!, Options));
        Assert.Throws<ArgumentOutOfRangeException>(() => Spawn<int>(system, (_, _) => { }, Options with { Throughput = 0 }));
        Assert.Throws<ArgumentOutOfRangeException>(() => Spawn<int>(system, (_, _) => { }, Options with { FullMode = (MailboxFullMode)42 }));
        Assert.Throws<InvalidOperationException>(() => system.Spawn<int>(() => null!, Options));
        Assert.Equal(0, system.ActorCount);
    }

    [Fact]
    public async Task Ask_NegativeTimeout_ThrowsArgumentOutOfRange()
    {
        await using var system = new ActorSystem();
        var actor = Spawn<int>(system, (context, m) => context.Reply(m));

        // Thrown by Ask itself, before anything is sent.
        Assert.Throws<ArgumentOutOfRangeException>(() => { _ = actor.Ask<int>(1, TimeSpan.FromSeconds(-1), Cancellation).AsTask(); });
        Assert.Equal(1, await actor.Ask<int>(1, Timeout.InfiniteTimeSpan, Cancellation).AsTask().DefaultTimeout());
    }

    [Fact]
    public async Task Ask_ZeroTimeout_ThrowsArgumentOutOfRange()
    {
        await using var system = new ActorSystem();
        var handled = 0;
        var actor = Spawn<int>(system, (context, m) =>
        {
            Interlocked.Increment(ref handled);
            context.Reply(m);
        });

        // The timeout must be positive: zero would send the request and time it out at once.
        Assert.Throws<ArgumentOutOfRangeException>(() => { _ = actor.Ask<int>(1, TimeSpan.Zero, Cancellation).AsTask(); });
        Assert.Equal(2, await actor.Ask<int>(2, Timeout.InfiniteTimeSpan, Cancellation).AsTask().DefaultTimeout());
        Assert.Equal(1, Volatile.Read(ref handled));
    }

    [Fact]
    public async Task Stop_UnknownMode_ThrowsArgumentOutOfRangeAndKeepsRunning()
    {
        await using var system = new ActorSystem();
        var actor = Spawn<int>(system, (context, m) => context.Reply(m));

        Assert.Throws<ArgumentOutOfRangeException>(() => actor.Stop((ActorStopMode)42));
        await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() => actor.StopAsync((ActorStopMode)42, Cancellation).DefaultTimeout());

        Assert.False(actor.IsStopped);
        Assert.Equal(3, await actor.Ask<int>(3, Cancellation).AsTask().DefaultTimeout());
    }

    private ActorRef<T> Spawn<T>(ActorSystem system, Action<ActorContext<T>, T> receive, ActorOptions? options = null)
        => system.Spawn(() => Create(receive), options ?? Options);

    private Actor<T> Create<T>(Action<ActorContext<T>, T> receive)
        => AwaitInHandler ? new YieldingActor<T>(receive) : new DelegateActor<T>(receive);

    /// <summary>A counter: a positive message adds to it, 0 asks for its value, a negative one throws <paramref name="failure"/>.</summary>
    private Func<Actor<int>> Counter(Exception failure, Action created) => () =>
    {
        created();
        var count = 0;
        return Create<int>((context, m) =>
        {
            if (m < 0)
            {
                throw failure;
            }

            if (m == 0)
            {
                context.Reply(count);
            }
            else
            {
                count += m;
            }
        });
    };

    private static int ProcessThreads()
    {
        using var process = Process.GetCurrentProcess();
        return process.Threads.Count;
    }
}
