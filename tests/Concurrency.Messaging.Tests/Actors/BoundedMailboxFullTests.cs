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
        await using var full = await FullActor.StartAsync(Kind, MailboxFullMode.Reject);
        var actor = full.Actor;

        Assert.False(actor.TryTell(-1));
        Assert.Throws<MailboxFullException>(() => actor.Tell(-2));
        await Assert.ThrowsAsync<MailboxFullException>(() => actor.TellAsync(-3, Cancellation).AsTask().DefaultTimeout());
        await Assert.ThrowsAsync<MailboxFullException>(() => actor.Ask<int>(-4, Cancellation).AsTask().DefaultTimeout());
        await full.OpenAndDrainAsync();

        Assert.Equal([0, 1, 2, 3, 4], full.Handled);
        Assert.Equal(0, full.System.DeadLetterCount);
    }

    [Fact]
    public async Task TellAsync_WaitAndFull_WaitsForRoomThenDelivers()
    {
        await using var full = await FullActor.StartAsync(Kind, MailboxFullMode.Wait);

        Assert.False(full.Actor.TryTell(-1));
        var waiting = full.Actor.TellAsync(Capacity + 1, Cancellation).AsTask();
        Assert.False(waiting.IsCompleted);
        await full.OpenAndDrainAsync(waiting);

        Assert.Equal(Enumerable.Range(0, Capacity + 2), full.Handled);
    }

    [Fact]
    public async Task TellAsync_WaitFullThenCancelled_ThrowsAndMessageNotDelivered()
    {
        await using var full = await FullActor.StartAsync(Kind, MailboxFullMode.Wait);
        using var cancel = CancellationTokenSource.CreateLinkedTokenSource(Cancellation);

        var waiting = full.Actor.TellAsync(-1, cancel.Token).AsTask();
        await cancel.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => waiting.DefaultTimeout());
        await full.OpenAndDrainAsync();

        Assert.Equal(Enumerable.Range(0, Capacity + 1), full.Handled);
    }

    [Fact]
    public async Task Tell_WaitAndFull_BlocksTheSenderUntilThereIsRoom()
    {
        await using var full = await FullActor.StartAsync(Kind, MailboxFullMode.Wait);

        var sender = await BlockedThread.StartAsync(() => full.Actor.Tell(Capacity + 1)); // returns once the Tell waits for room
        await full.OpenAndDrainAsync(sender);

        Assert.Equal(Enumerable.Range(0, Capacity + 2), full.Handled);
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

        await gate.HoldAsync(actor, 0);
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

    [Theory]
    [InlineData(false, 2, 4, 5_000)] // TellAsync: each sender waits for room without a thread
    [InlineData(true, 1, 3, 2_000)]  // Tell: each sender's thread blocks until there is room
    public async Task Tell_WaitAndConcurrentSendersIntoTinyMailbox_NothingLostAndEachSendersOrderKept(bool blocking, int capacity, int senders, int perSender)
    {
        await using var system = new ActorSystem();
        var log = new DeliveryLog(senders, perSender);
        var actor = system.Spawn(
            () => new DelegateActor<long>((_, m) => log.Record(m)),
            new ActorOptions { Mailbox = Kind, Capacity = capacity, FullMode = MailboxFullMode.Wait });

        await ProducerGroup.TellAsync(actor, senders, perSender, blocking);
        await actor.StopAsync(ActorStopMode.Drain, Cancellation).DefaultTimeout();

        log.AssertExactlyOnceInOrder(senders, perSender);
        Assert.Equal(0, system.DeadLetterCount);
    }

    [Fact]
    public async Task Stop_WhileSendersWaitForRoom_TheyEndAndTheirMessagesAreDeadLetters()
    {
        // The clock never moves: the waiting Ask can end only by the stop.
        await using var full = await FullActor.StartAsync(Kind, MailboxFullMode.Wait, new FakeTimeProvider());
        var actor = full.Actor;

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
        full.Gate.Open();
        await actor.Termination.DefaultTimeout();

        Assert.Equal(Enumerable.Range(0, Capacity + 1), full.Handled); // what was accepted before the stop, in order
        Assert.Equal(3, full.System.DeadLetterCount);                  // each waiting sender's message, none lost silently
    }

    [Fact]
    public async Task Spawn_CapacityBelowOne_ThrowsArgumentOutOfRange()
    {
        await using var system = new ActorSystem();

        Assert.Throws<ArgumentOutOfRangeException>(() => system.Spawn(
            () => new DelegateActor<int>((_, _) => { }),
            new ActorOptions { Mailbox = Kind, Capacity = 0 }));
    }

    /// <summary>
    /// A bounded actor of <see cref="Capacity"/> that records what it handles, held inside message 0 at its gate, its
    /// mailbox filled with 1..Capacity: full, and nothing frees it until the test opens the gate.
    /// </summary>
    private sealed class FullActor : IAsyncDisposable
    {
        private FullActor(ActorSystem system, MailboxKind kind, MailboxFullMode fullMode)
        {
            System = system;
            Actor = system.Spawn(
                () => new DelegateActor<int>(Gate.HoldingZero((_, m) => Handled.Add(m))),
                new ActorOptions { Mailbox = kind, Capacity = Capacity, FullMode = fullMode });
        }

        public ActorSystem System { get; }

        public HandlerGate Gate { get; } = new();

        /// <summary>Gets what the actor handled, in order (written by its turns only, read after it stopped).</summary>
        public List<int> Handled { get; } = [];

        public ActorRef<int> Actor { get; }

        public static async Task<FullActor> StartAsync(MailboxKind kind, MailboxFullMode fullMode, TimeProvider? time = null)
        {
            var full = new FullActor(new ActorSystem(new ActorSystemOptions { TimeProvider = time ?? TimeProvider.System }), kind, fullMode);
            try
            {
                await full.Gate.HoldAsync(full.Actor, 0);
                for (var i = 1; i <= Capacity; i++)
                {
                    Assert.True(full.Actor.TryTell(i));
                }

                return full;
            }
            catch
            {
                await full.DisposeAsync();
                throw;
            }
        }

        /// <summary>Opens the gate, waits (bounded) for <paramref name="sender"/> if given, then drains and stops the actor.</summary>
        public async Task OpenAndDrainAsync(Task? sender = null)
        {
            Gate.Open();
            if (sender is not null)
            {
                await sender.DefaultTimeout();
            }

            await Actor.StopAsync(ActorStopMode.Drain, Cancellation).DefaultTimeout();
        }

        public async ValueTask DisposeAsync()
        {
            Gate.Dispose(); // opens the gate first, so a failed test never leaves the handler waiting while the system stops
            await System.DisposeAsync();
        }
    }
}
