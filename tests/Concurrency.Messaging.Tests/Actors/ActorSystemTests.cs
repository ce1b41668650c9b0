namespace Concurrency.Messaging.Tests.Actors;

/// <summary>The system's own arguments and lifetime; what every actor does is in <see cref="MailboxContractTests"/>.</summary>
public sealed class ActorSystemTests
{
    [Fact]
    public void Constructor_BadOptions_ThrowClearly()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => new ActorSystem(new ActorSystemOptions { Throughput = 0 }));
        Assert.Throws<ArgumentOutOfRangeException>(() => new ActorSystem(new ActorSystemOptions { AskTimeout = TimeSpan.FromSeconds(-1) }));
        Assert.Throws<ArgumentOutOfRangeException>(() => new ActorSystem(new ActorSystemOptions { AskTimeout = TimeSpan.Zero }));
        Assert.Throws<ArgumentNullException>(() => new ActorSystem(new ActorSystemOptions { TimeProvider = null! }));
    }

    [Fact]
    public async Task Spawn_CapacityOnABatchDrainMailbox_ThrowsArgumentException()
    {
        await using var system = new ActorSystem();

        Assert.Throws<ArgumentException>(() => system.Spawn(
            () => new DelegateActor<int>((_, _) => { }),
            new ActorOptions { Mailbox = MailboxKind.BatchDrain, Capacity = 16 }));
        Assert.Throws<ArgumentOutOfRangeException>(() => system.Spawn(
            () => new DelegateActor<int>((_, _) => { }),
            new ActorOptions { Mailbox = (MailboxKind)42 }));
    }

    [Fact]
    public async Task Spawn_FactoryThrows_PropagatesAndCreatesNoActor()
    {
        await using var system = new ActorSystem();
        var boom = new InvalidOperationException("factory");

        Assert.Same(boom, Assert.Throws<InvalidOperationException>(() => system.Spawn<int>(() => throw boom)));
        Assert.Equal(0, system.ActorCount);
    }

    [Fact]
    public async Task DisposeAsync_Twice_SecondReturnsAtOnce()
    {
        var system = new ActorSystem();
        var actor = system.Spawn(() => new DelegateActor<int>((_, _) => { }));

        await system.DisposeAsync().AsTask().DefaultTimeout();
        var second = system.DisposeAsync().AsTask();

        Assert.True(second.IsCompletedSuccessfully, $"the second DisposeAsync did not return at once: {second.Status}");
        await second;
        Assert.True(actor.IsStopped);
        Assert.Equal(0, system.ActorCount);
    }

    [Fact]
    public void Constructor_AskTimeoutLongerThanATimerTakes_ThrowsArgumentOutOfRange()
    {
        // A timer takes at most uint.MaxValue - 1 ms; one more would pass creation and then fail every Ask.
        Assert.Throws<ArgumentOutOfRangeException>(() => new ActorSystem(new ActorSystemOptions { AskTimeout = TimeSpan.FromMilliseconds(uint.MaxValue) }));
        Assert.Throws<ArgumentOutOfRangeException>(() => new ActorSystem(new ActorSystemOptions { AskTimeout = TimeSpan.MaxValue }));
        _ = new ActorSystem(new ActorSystemOptions { AskTimeout = TimeSpan.FromMilliseconds(uint.MaxValue - 1) });
        _ = new ActorSystem(new ActorSystemOptions { AskTimeout = Timeout.InfiniteTimeSpan });
    }

    [Fact]
    public async Task ShutdownAsync_UnknownStopMode_ThrowsArgumentOutOfRangeAndStopsNothing()
    {
        await using var system = new ActorSystem();
        var actor = system.Spawn(() => new DelegateActor<int>((_, _) => { }));

        await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() => system.ShutdownAsync((ActorStopMode)42, TestContext.Current.CancellationToken).DefaultTimeout());

        Assert.False(actor.IsStopped);
    }

    [Fact]
    public async Task DisposeAsync_MailWaiting_ReportedAsDeadLetters()
    {
        var system = new ActorSystem();
        var letters = new List<DeadLetter>();
        using var subscription = system.DeadLetters.Subscribe(letters.Add); // the subject serializes its calls
        using var gate = new HandlerGate();
        var actor = system.Spawn(
            () => new DelegateActor<int>((_, m) =>
            {
                if (m == 0)
                {
                    gate.Hold();
                }
            }),
            new ActorOptions { Name = "held" });
        await gate.HoldAsync(actor, 0);
        actor.Tell(1);
        actor.Tell(2);
        actor.Tell(3);

        var disposing = system.DisposeAsync().AsTask();
        gate.Open();
        await disposing.DefaultTimeout();

        Assert.Equal(3, actor.DiscardedCount);
        Assert.Equal(3, system.DeadLetterCount);
        Assert.Equal([1, 2, 3], letters.Select(l => (int)l.Message!));
        Assert.All(letters, l => Assert.Equal("held", l.Recipient));
    }

    [Fact]
    public async Task Failures_SubscriberThrows_TheTurnCarriesOnAndTheProcessLives()
    {
        // Run in the crash probe: before the fix the subscriber's exception left the turn and ended the process.
        var (exitCode, output, errors) = await CrashProbeProcess.RunAsync("failure-subscriber");

        Assert.True(exitCode == 0, $"the probe exited with {exitCode}; its error output: {errors}");
        Assert.Contains("survived: failures 1, subscriber errors 1", output, StringComparison.Ordinal);
    }
}
