using Concurrency.Messaging.Tests.Pipes;

namespace Concurrency.Messaging.Tests.Actors;

/// <summary>
/// What a full bounded mailbox does, whatever its queue: each bounded kind runs this suite through a one-line subclass.
/// Each test holds the actor inside its first message (its turn has already taken that message out of the queue), so the
/// whole capacity is free and nothing frees it until the test opens the gate.
/// </summary>
public abstract class BoundedMailboxFullTests
{
    private const int Capacity = 4;

    protected abstract MailboxKind Kind { get; }

    private static CancellationToken Cancellation => TestContext.Current.CancellationToken;

    [Fact]
    public async Task Tell_RejectAndFull_ThrowsMailboxFullAndNothingAcceptedIsLost()
    {
        await using var system = new ActorSystem();
        using var gate = new HandlerGate();
        var handled = new List<int>();
        var actor = SpawnHeld(system, gate, handled, MailboxFullMode.Reject);

        await HoldAndFillAsync(actor, gate);

        Assert.False(actor.TryTell(-1));
        Assert.Throws<MailboxFullException>(() => actor.Tell(-2));
        await Assert.ThrowsAsync<MailboxFullException>(() => actor.TellAsync(-3, Cancellation).AsTask().DefaultTimeout());
        await Assert.ThrowsAsync<MailboxFullException>(() => actor.Ask<int>(-4, Cancellation).AsTask().DefaultTimeout());
        gate.Open();
        await actor.StopAsync(ActorStopMode.Drain, Cancellation).DefaultTimeout();

        Assert.Equal([0, 1, 2, 3, 4], handled);
        Assert.Equal(0, system.DeadLetterCount);
    }

    [Fact]
    public async Task TellAsync_WaitAndFull_WaitsForRoomThenDelivers()
    {
        await using var system = new ActorSystem();
        using var gate = new HandlerGate();
        var handled = new List<int>();
        var actor = SpawnHeld(system, gate, handled, MailboxFullMode.Wait);

        await HoldAndFillAsync(actor, gate);

        Assert.False(actor.TryTell(-1));
        var waiting = actor.TellAsync(Capacity + 1, Cancellation).AsTask();
        Assert.False(waiting.IsCompleted);
        gate.Open();
        await waiting.DefaultTimeout();
        await actor.StopAsync(ActorStopMode.Drain, Cancellation).DefaultTimeout();

        Assert.Equal(Enumerable.Range(0, Capacity + 2), handled);
    }

    [Fact]
    public async Task TellAsync_WaitFullThenCancelled_ThrowsAndMessageNotDelivered()
    {
        await using var system = new ActorSystem();
        using var gate = new HandlerGate();
        var handled = new List<int>();
        var actor = SpawnHeld(system, gate, handled, MailboxFullMode.Wait);
        using var cancel = CancellationTokenSource.CreateLinkedTokenSource(Cancellation);

        await HoldAndFillAsync(actor, gate);

        var waiting = actor.TellAsync(-1, cancel.Token).AsTask();
        await cancel.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => waiting.DefaultTimeout());
        gate.Open();
        await actor.StopAsync(ActorStopMode.Drain, Cancellation).DefaultTimeout();

        Assert.Equal(Enumerable.Range(0, Capacity + 1), handled);
    }

    [Fact]
    public async Task Tell_WaitAndFull_BlocksTheSenderUntilThereIsRoom()
    {
        await using var system = new ActorSystem();
        using var gate = new HandlerGate();
        var handled = new List<int>();
        var actor = SpawnHeld(system, gate, handled, MailboxFullMode.Wait);

        await HoldAndFillAsync(actor, gate);

        var sender = await BlockedThread.StartAsync(() => actor.Tell(Capacity + 1)); // returns once the Tell waits for room
        gate.Open();
        await sender.DefaultTimeout();
        await actor.StopAsync(ActorStopMode.Drain, Cancellation).DefaultTimeout();

        Assert.Equal(Enumerable.Range(0, Capacity + 2), handled);
    }

    [Fact]
    public async Task Tell_ToItselfWhileFullAndWaiting_ThrowsMailboxFullInsteadOfDeadlocking()
    {
        await using var system = new ActorSystem();
        using var gate = new HandlerGate();
        var refused = new TaskCompletionSource<Exception>(TaskCreationOptions.RunContinuationsAsynchronously);
        var actor = system.Spawn(
            () => new DelegateActor<int>((context, m) =>
            {
                if (m != 0)
                {
                    return;
                }

                gate.Hold();
                try
                {
                    context.Self.Tell(99);
                    refused.SetException(new InvalidOperationException("the actor's own Tell into its full mailbox returned"));
                }
                catch (MailboxFullException ex)
                {
                    refused.SetResult(ex);
                }
            }),
            new ActorOptions { Mailbox = Kind, Capacity = 1, FullMode = MailboxFullMode.Wait });

        actor.Tell(0);
        await gate.Entered.DefaultTimeout();
        Assert.True(actor.TryTell(1));
        Assert.False(actor.TryTell(2));
        gate.Open();

        var error = await refused.Task.DefaultTimeout();
        Assert.Contains("TryTell", Assert.IsType<MailboxFullException>(error).Message, StringComparison.Ordinal);
        await actor.StopAsync(ActorStopMode.Drain, Cancellation).DefaultTimeout();
    }

    [Fact]
    public async Task Tell_TwoActorsTellEachOtherThroughFullWaitMailboxes_ThrowsMailboxFullInsteadOfDeadlocking()
    {
        const int tellsPerMessage = 100; // far more than a mailbox of one holds, so each side finds the other's full
        const int handledLimit = 1_000;  // then the exchange stops, whatever the outcome
        var system = new ActorSystem();
        var refused = new TaskCompletionSource<ActorFailure>(TaskCreationOptions.RunContinuationsAsynchronously);
        using var subscription = system.Failures.Subscribe(f => refused.TrySetResult(f));
        var options = new ActorOptions { Mailbox = Kind, Capacity = 1, FullMode = MailboxFullMode.Wait };
        var handled = 0;
        ActorRef<int>? pong = null;
        void Bounce(ActorRef<int> peer)
        {
            if (Interlocked.Increment(ref handled) > handledLimit)
            {
                return;
            }

            for (var i = 0; i < tellsPerMessage; i++)
            {
                peer.Tell(i);
            }
        }

        var ping = system.Spawn(() => new DelegateActor<int>((_, _) => Bounce(pong!)), options with { Name = "ping" });
        pong = system.Spawn(() => new DelegateActor<int>((_, _) => Bounce(ping)), options with { Name = "pong" });

        ping.Tell(0);

        // A blocking Tell here would hold both turns' threads for ever, each waiting for the other to make room.
        var failure = await refused.Task.DefaultTimeout();
        var full = Assert.IsType<MailboxFullException>(failure.Exception);
        Assert.Contains("TryTell", full.Message, StringComparison.Ordinal);
        Assert.Contains("TellAsync", full.Message, StringComparison.Ordinal);
        Assert.Contains("ReceiveAsync", full.Message, StringComparison.Ordinal);
        Assert.Equal(SupervisionDirective.Restart, failure.Directive);
        await system.ShutdownAsync(ActorStopMode.Discard, Cancellation).DefaultTimeout(); // not await using: bounded even if deadlocked
    }

    [Fact]
    public async Task TellAsync_WaitAndConcurrentSendersIntoTinyMailbox_NothingLostAndEachSendersOrderKept()
    {
        const int senders = 4, perSender = 5_000;
        await using var system = new ActorSystem();
        var log = new DeliveryLog(senders, perSender);
        var actor = system.Spawn(
            () => new DelegateActor<long>((_, m) => log.Record(m)),
            new ActorOptions { Mailbox = Kind, Capacity = 2, FullMode = MailboxFullMode.Wait });

        await Task.WhenAll(Enumerable.Range(0, senders).Select(s => Task.Run(async () =>
        {
            for (var i = 0; i < perSender; i++)
            {
                await actor.TellAsync(DeliveryLog.Message(s, i), Cancellation);
            }
        }))).DefaultTimeout();
        await actor.StopAsync(ActorStopMode.Drain, Cancellation).DefaultTimeout();

        log.AssertExactlyOnce(senders, perSender);
        Assert.Equal(0, log.OutOfOrder);
        Assert.Equal(0, system.DeadLetterCount);
    }

    [Fact]
    public async Task Tell_WaitAndConcurrentBlockingSendersIntoTinyMailbox_NothingLost()
    {
        const int senders = 3, perSender = 2_000;
        await using var system = new ActorSystem();
        var log = new DeliveryLog(senders, perSender);
        var actor = system.Spawn(
            () => new DelegateActor<long>((_, m) => log.Record(m)),
            new ActorOptions { Mailbox = Kind, Capacity = 1, FullMode = MailboxFullMode.Wait });

        // Threads of their own: a blocking Tell on pool threads would wait on the pool for the continuation that frees it.
        var sends = Enumerable.Range(0, senders).Select(s => Task.Factory.StartNew(
            () =>
            {
                for (var i = 0; i < perSender; i++)
                {
                    actor.Tell(DeliveryLog.Message(s, i));
                }
            },
            Cancellation,
            TaskCreationOptions.LongRunning,
            TaskScheduler.Default));
        await Task.WhenAll(sends).DefaultTimeout();
        await actor.StopAsync(ActorStopMode.Drain, Cancellation).DefaultTimeout();

        log.AssertExactlyOnce(senders, perSender);
        Assert.Equal(0, log.OutOfOrder);
    }

    [Fact]
    public async Task Stop_WhileSendersWaitForRoom_TheyEndAndTheirMessagesAreDeadLetters()
    {
        await using var system = new ActorSystem(new ActorSystemOptions { TimeProvider = new FakeTimeProvider() });
        using var gate = new HandlerGate();
        var handled = new List<int>();
        var actor = SpawnHeld(system, gate, handled, MailboxFullMode.Wait);

        await HoldAndFillAsync(actor, gate);

        var waitingTell = actor.TellAsync(-1, Cancellation).AsTask();
        var waitingAsk = actor.Ask<int>(-2, Cancellation).AsTask();
        var blockedTell = await BlockedThread.StartAsync(() => actor.Tell(-3));
        Assert.False(waitingTell.IsCompleted);
        Assert.False(waitingAsk.IsCompleted);

        Assert.True(actor.Stop(ActorStopMode.Drain));
        await waitingTell.DefaultTimeout();
        await Assert.ThrowsAsync<ActorStoppedException>(() => waitingAsk.DefaultTimeout());
        await blockedTell.DefaultTimeout();
        Assert.False(actor.Termination.IsCompleted); // still held inside message 0
        gate.Open();
        await actor.Termination.DefaultTimeout();

        Assert.Equal(Enumerable.Range(0, Capacity + 1), handled); // what was accepted before the stop, in order
        Assert.Equal(3, system.DeadLetterCount);                  // each waiting sender's message, none lost silently
    }

    [Fact]
    public async Task Spawn_CapacityBelowOne_ThrowsArgumentOutOfRange()
    {
        await using var system = new ActorSystem();

        Assert.Throws<ArgumentOutOfRangeException>(() => system.Spawn(
            () => new DelegateActor<int>((_, _) => { }),
            new ActorOptions { Mailbox = Kind, Capacity = 0 }));
    }

    /// <summary>Tells 0, which the actor holds at the gate, then fills the mailbox with 1..Capacity.</summary>
    private static async Task HoldAndFillAsync(ActorRef<int> actor, HandlerGate gate)
    {
        actor.Tell(0);
        await gate.Entered.DefaultTimeout();
        for (var i = 1; i <= Capacity; i++)
        {
            Assert.True(actor.TryTell(i));
        }
    }

    /// <summary>A bounded actor that records what it handles and holds at <paramref name="gate"/> on message 0.</summary>
    private ActorRef<int> SpawnHeld(ActorSystem system, HandlerGate gate, List<int> handled, MailboxFullMode fullMode) =>
        system.Spawn(
            () => new DelegateActor<int>((_, m) =>
            {
                if (m == 0)
                {
                    gate.Hold();
                }

                handled.Add(m);
            }),
            new ActorOptions { Mailbox = Kind, Capacity = Capacity, FullMode = fullMode });
}
