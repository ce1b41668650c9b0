using System.Collections.Concurrent;
using Concurrency.Messaging.Tests.Pipes;

namespace Concurrency.Messaging.Tests.Actors;

/// <summary>
/// What an async handler adds to the contract (which <see cref="BatchDrainAsyncHandlerTests"/> runs with handlers that
/// await): the actor handles nothing else while a handler awaits, holds no thread meanwhile, and ends the message, its
/// failure, its reply and a stop requested meanwhile when the handler completes. Awaits that the test completes itself
/// (a <see cref="TaskCompletionSource"/>) make each step deterministic.
/// </summary>
public sealed class AsyncActorTests
{
    private static CancellationToken Cancellation => TestContext.Current.CancellationToken;

    [Fact]
    public async Task ReceiveAsync_ConcurrentSendersAndAwaitingHandlers_OrderKeptAndNeverTwoHandlersAtOnce()
    {
        const int senders = 4, perSender = 2_000;
        await using var system = new ActorSystem();
        var log = new DeliveryLog(senders, perSender);
        int inside = 0, overlaps = 0;
        var actor = system.Spawn(() => new AsyncDelegateActor<long>(async (_, m) =>
        {
            if (Interlocked.Increment(ref inside) != 1)
            {
                Interlocked.Increment(ref overlaps);
            }

            await Task.Yield();
            log.Record(m); // its per-sender order check assumes one handler at a time, as the actor promises
            await Task.Yield();
            Interlocked.Decrement(ref inside);
        }));

        await ProducerGroup.TellAsync(actor, senders, perSender);
        await actor.StopAsync(ActorStopMode.Drain, Cancellation).DefaultTimeout();

        Assert.Equal(0, Volatile.Read(ref overlaps));
        log.AssertExactlyOnceInOrder(senders, perSender);
    }

    [Fact]
    public async Task ReceiveAsync_MessagesToldWhileAwaiting_HandledOnlyAfterTheAwaitCompletes()
    {
        await using var system = new ActorSystem();
        var release = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var awaiting = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var events = new ConcurrentQueue<string>();
        var actor = system.Spawn(() => new AsyncDelegateActor<int>(async (_, m) =>
        {
            events.Enqueue($"start {m}");
            if (m == 0)
            {
                awaiting.SetResult();
                await release.Task;
            }

            events.Enqueue($"end {m}");
        }));

        actor.Tell(0);
        await awaiting.Task.DefaultTimeout();
        actor.Tell(1);
        actor.Tell(2);
        Assert.Equal(["start 0"], events);
        release.SetResult();
        await actor.StopAsync(ActorStopMode.Drain, Cancellation).DefaultTimeout();

        Assert.Equal(["start 0", "end 0", "start 1", "end 1", "start 2", "end 2"], events);
    }

    [Fact]
    public async Task ReceiveAsync_ThrowsAfterAwait_SupervisorRestartsAndTheAskGetsTheException()
    {
        await using var system = new ActorSystem();
        using var failures = new FailureLog(system);
        var boom = new InvalidOperationException("boom");
        var created = 0;
        var actor = system.Spawn(
            () =>
            {
                created++;
                var count = 0;
                return new AsyncDelegateActor<int>(async (context, m) =>
                {
                    await Task.Yield();
                    if (m < 0)
                    {
                        throw boom;
                    }

                    count += m;
                    if (context.HasPendingReply)
                    {
                        context.Reply(count);
                    }
                });
            },
            new ActorOptions { Name = "failing", Supervisor = _ => SupervisionDirective.Restart });

        actor.Tell(5);
        Assert.Same(boom, await Assert.ThrowsAsync<InvalidOperationException>(() => actor.Ask<int>(-1, Cancellation).AsTask().DefaultTimeout()));
        Assert.Equal(1, await actor.Ask<int>(1, Cancellation).AsTask().DefaultTimeout()); // fresh state after the restart

        Assert.Equal(new ActorFailure("failing", boom, SupervisionDirective.Restart), Assert.Single(failures));
        Assert.Equal(2, created);
    }

    [Fact]
    public async Task ReceiveAsync_ThrowsBeforeAnyAwait_GoesToTheSupervisorLikeASynchronousThrow()
    {
        await using var system = new ActorSystem();
        var boom = new InvalidOperationException("boom");
        var actor = system.Spawn(
            () => new AsyncDelegateActor<int>((context, m) =>
            {
                if (m < 0)
                {
                    return ValueTask.FromException(boom);
                }

                context.Reply(m);
                return default;
            }),
            new ActorOptions { Supervisor = _ => SupervisionDirective.Stop });

        Assert.Equal(1, await actor.Ask<int>(1, Cancellation).AsTask().DefaultTimeout());
        actor.Tell(-1);

        Assert.Same(boom, await Assert.ThrowsAsync<InvalidOperationException>(() => actor.Termination.DefaultTimeout()));
        Assert.Equal(1, system.FailureCount);
    }

    [Fact]
    public async Task ReceiveAsync_CompletesSynchronously_AllocatesNothingPerMessage()
    {
        const int messages = 200;
        await using var system = new ActorSystem();
        using var gate = new HandlerGate();
        var allocated = new long[messages + 1];
        var threads = new int[messages + 1];
        var actor = system.Spawn(() => new SynchronousRecorder(gate, allocated, threads));

        await gate.HoldAsync(actor, 0);
        for (var i = 1; i <= messages; i++)
        {
            actor.Tell(i); // queued behind the held message: the next turn takes them all and handles them back to back
        }

        gate.Open();
        await actor.StopAsync(ActorStopMode.Drain, Cancellation).DefaultTimeout();

        // The first messages of the batch may still allocate once (a first call's static set-up); the rest must not.
        const int from = 20;
        Assert.All(Enumerable.Range(from, messages - from + 1), i => Assert.Equal(threads[from], threads[i]));
        Assert.Equal(allocated[from], allocated[messages]);
    }

    [Fact]
    public async Task Stop_DiscardWhileHandlerAwaits_TakesEffectWhenItCompletesAndItsAskStillGetsTheReply()
    {
        await using var system = new ActorSystem(new ActorSystemOptions { TimeProvider = new FakeTimeProvider() });
        var release = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var awaiting = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var handled = new ConcurrentQueue<int>();
        var actor = system.Spawn(() => new AsyncDelegateActor<int>(async (context, m) =>
        {
            if (m == 0)
            {
                awaiting.SetResult();
                await release.Task;
                context.Reply(42);
            }

            handled.Enqueue(m);
        }));

        var ask = actor.Ask<int>(0, Cancellation);
        await awaiting.Task.DefaultTimeout();
        actor.Tell(1);
        actor.Tell(2);
        Assert.True(actor.Stop(ActorStopMode.Discard));
        actor.Tell(3);

        Assert.True(actor.IsStopped);
        Assert.False(actor.Termination.IsCompleted); // the handler still awaits: the stop waits for it
        release.SetResult();

        Assert.Equal(42, await ask.AsTask().DefaultTimeout());
        await actor.Termination.DefaultTimeout();
        Assert.Equal([0], handled);
        Assert.Equal(2, actor.DiscardedCount);
        Assert.Equal(3, system.DeadLetterCount); // the two discarded, and the one told after the stop
    }

    [Fact]
    public async Task ReceiveAsync_AwaitCancelled_CancellationGoesToTheSupervisorAndTheActorGoesOn()
    {
        await using var system = new ActorSystem();
        using var failures = new FailureLog(system);
        using var cancel = CancellationTokenSource.CreateLinkedTokenSource(Cancellation);
        var awaiting = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var actor = system.Spawn(
            () => new AsyncDelegateActor<int>(async (context, m) =>
            {
                if (m == 0)
                {
                    awaiting.SetResult();
                    await Task.Delay(Timeout.InfiniteTimeSpan, cancel.Token);
                }

                if (context.HasPendingReply)
                {
                    context.Reply(m);
                }
            }),
            new ActorOptions { Supervisor = _ => SupervisionDirective.Resume });

        actor.Tell(0);
        await awaiting.Task.DefaultTimeout();
        var ask = actor.Ask<int>(1, Cancellation);
        await cancel.CancelAsync();

        Assert.Equal(1, await ask.AsTask().DefaultTimeout());
        var failure = Assert.Single(failures);
        Assert.IsAssignableFrom<OperationCanceledException>(failure.Exception);
        Assert.Equal(SupervisionDirective.Resume, failure.Directive);
    }

    [Fact]
    public async Task ReceiveAsync_ThousandActorsAwaitingAtOnce_HoldNoThread()
    {
        const int actors = 1_000;
        var system = new ActorSystem();
        var release = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var allAwaiting = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var allDone = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var threads = new ConcurrentDictionary<int, bool>();
        int awaiting = 0, done = 0;
        var refs = Enumerable.Range(0, actors).Select(_ => system.Spawn(() => new AsyncDelegateActor<int>(async (_, _) =>
        {
            threads.TryAdd(Environment.CurrentManagedThreadId, true);
            if (Interlocked.Increment(ref awaiting) == actors)
            {
                allAwaiting.SetResult();
            }

            await release.Task;
            if (Interlocked.Increment(ref done) == actors)
            {
                allDone.SetResult();
            }
        }))).ToArray();

        foreach (var actor in refs)
        {
            actor.Tell(1);
        }

        // A handler holding its thread while it awaits would need a thousand threads at once here; the pool adds a thread or
        // two a second when starved, so the wait would run into its timeout instead.
        await allAwaiting.Task.DefaultTimeout();
        Assert.True(threads.Count < actors / 10, $"{threads.Count} threads ran {actors} handlers that were all awaiting at once");
        release.SetResult();
        await allDone.Task.DefaultTimeout();
        await system.ShutdownAsync(ActorStopMode.Drain, Cancellation).DefaultTimeout();

        Assert.Equal(0, system.ActorCount);
    }

    /// <summary>An async actor whose handler is a delegate given the actor's context.</summary>
    private sealed class AsyncDelegateActor<T>(Func<ActorContext<T>, T, ValueTask> receive) : AsyncActor<T>
    {
        protected override ValueTask ReceiveAsync(T message) => receive(Context, message);
    }

    /// <summary>
    /// An async actor whose handler always completes synchronously and records, per message, the bytes its thread had
    /// allocated so far and the thread; message 0 holds at the gate.
    /// </summary>
    private sealed class SynchronousRecorder(HandlerGate gate, long[] allocated, int[] threads) : AsyncActor<int>
    {
        protected override async ValueTask ReceiveAsync(int message)
        {
            if (message == 0)
            {
                gate.Hold();
            }

            threads[message] = Environment.CurrentManagedThreadId;
            allocated[message] = GC.GetAllocatedBytesForCurrentThread();
            await ValueTask.CompletedTask;
        }
    }
}
