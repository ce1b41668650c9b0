using Concurrency.Messaging.Actors;
using Xunit;

namespace Concurrency.Messaging.Tests.Actors;

/// <summary>
/// What a full <see cref="MailboxKind.BoundedChannel"/> mailbox does. Each test holds the actor inside its first message
/// (its turn has already taken that message out of the channel), so the channel's whole capacity is free and nothing
/// frees it until the test opens the gate.
/// </summary>
public sealed class BoundedMailboxFullTests
{
    private const int Capacity = 4;

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
            new ActorOptions { Mailbox = MailboxKind.BoundedChannel, Capacity = 1, FullMode = MailboxFullMode.Wait });

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
        var options = new ActorOptions { Mailbox = MailboxKind.BoundedChannel, Capacity = 1, FullMode = MailboxFullMode.Wait };
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
        Assert.Equal(SupervisionDirective.Restart, failure.Directive);
        await system.ShutdownAsync(ActorStopMode.Discard, Cancellation).DefaultTimeout(); // not await using: bounded even if deadlocked
    }

    [Fact]
    public async Task Spawn_CapacityBelowOne_ThrowsArgumentOutOfRange()
    {
        await using var system = new ActorSystem();

        Assert.Throws<ArgumentOutOfRangeException>(() => system.Spawn(
            () => new DelegateActor<int>((_, _) => { }),
            new ActorOptions { Mailbox = MailboxKind.BoundedChannel, Capacity = 0 }));
    }

    /// <summary>A bounded actor that records what it handles and holds at <paramref name="gate"/> on message 0.</summary>
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

    private static ActorRef<int> SpawnHeld(ActorSystem system, HandlerGate gate, List<int> handled, MailboxFullMode fullMode) =>
        system.Spawn(
            () => new DelegateActor<int>((_, m) =>
            {
                if (m == 0)
                {
                    gate.Hold();
                }

                handled.Add(m);
            }),
            new ActorOptions { Mailbox = MailboxKind.BoundedChannel, Capacity = Capacity, FullMode = fullMode });
}
