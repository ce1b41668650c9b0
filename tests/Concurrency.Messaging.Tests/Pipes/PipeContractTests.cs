namespace Concurrency.Messaging.Tests.Pipes;

/// <summary>
/// The behaviour every pipe promises. Each implementation runs this whole suite through a one-line subclass that says
/// which kind it is and what options it uses; capabilities a kind does not have (more producers, work-sharing, a bound)
/// are asserted to be refused at creation instead.
/// </summary>
public abstract class PipeContractTests
{
    private const int Small = 20_000;

    protected abstract PipeKind Kind { get; }

    /// <summary>The options under test; tests add producers and distribution to them.</summary>
    protected virtual PipeOptions BaseOptions => new();

    // What a kind can do follows from the kind, whatever its options: the ring promises one producer, and Rx's ObserveOn
    // one observer per subscription (no work-sharing).
    private bool AllowsManyProducers => Kind != PipeKind.Ring;

    private bool AllowsWorkSharing => Kind != PipeKind.ObserveOn;

    protected bool IsBounded => BaseOptions.Capacity is not null || Kind == PipeKind.Ring;

    /// <summary>Gets what the pipe's consumers counted as handled, as the pipes' instruments read it.</summary>
    protected static long HandledCount(IPipe<long> pipe) => ((IPipeCounts)pipe).HandledCount;

    protected IPipe<long> Create(Action<long> handler, int producers = 1)
        => Pipe.Create(Kind, handler, BaseOptions with { Producers = producers });

    protected IPipe<long> Create(IReadOnlyList<Action<long>> handlers, PipeDistribution distribution, int producers = 1)
        => Pipe.Create(Kind, handlers, BaseOptions with { Producers = producers, Distribution = distribution });

    [Fact]
    public async Task Post_OneProducer_HandlesEveryMessageOnceInOrder()
    {
        var log = new DeliveryLog(1, Small);
        await using var pipe = Create(log.Record);

        for (var i = 0; i < Small; i++)
        {
            pipe.Post(DeliveryLog.Message(0, i), TestContext.Current.CancellationToken);
        }

        pipe.Complete();
        await pipe.Completion.DefaultTimeout();

        log.AssertExactlyOnceInOrder(1, Small);
        Assert.Equal(0, pipe.UnhandledCount);
        Assert.Equal(Small, HandledCount(pipe));
    }

    [Fact]
    public async Task PostAsync_OneProducer_HandlesEveryMessageOnceInOrder()
    {
        var log = new DeliveryLog(1, Small);
        await using var pipe = Create(log.Record);

        for (var i = 0; i < Small; i++)
        {
            await pipe.PostAsync(DeliveryLog.Message(0, i), TestContext.Current.CancellationToken);
        }

        pipe.Complete();
        await pipe.Completion.DefaultTimeout();

        log.AssertExactlyOnceInOrder(1, Small);
    }

    [Fact]
    public async Task Post_ConcurrentProducers_EveryIdOnceAndEachProducersOrderKept()
    {
        if (!AllowsManyProducers)
        {
            Assert.Throws<ArgumentException>(() => Create(_ => { }, producers: 4));
            return;
        }

        const int producers = 4;
        var log = new DeliveryLog(producers, Small);
        await using var pipe = Create(log.Record, producers);

        await ProducerGroup.RunAsync(pipe, producers, Small);
        pipe.Complete();
        await pipe.Completion.DefaultTimeout();

        log.AssertExactlyOnceInOrder(producers, Small);
    }

    [Fact]
    public async Task Post_Broadcast_EveryConsumerHandlesEveryMessageInOrder()
    {
        const int consumers = 3;
        var logs = Enumerable.Range(0, consumers).Select(_ => new DeliveryLog(1, Small)).ToArray();
        await using var pipe = Create(logs.Select(l => (Action<long>)l.Record).ToArray(), PipeDistribution.Broadcast);

        await ProducerGroup.RunAsync(pipe, 1, Small);
        pipe.Complete();
        await pipe.Completion.DefaultTimeout();

        foreach (var log in logs)
        {
            log.AssertExactlyOnceInOrder(1, Small);
        }

        Assert.Equal(consumers * Small, HandledCount(pipe)); // each consumer's count, summed
    }

    [Fact]
    public async Task Post_WorkSharing_EachMessageHandledOnceAcrossConsumers()
    {
        const int consumers = 3;
        if (!AllowsWorkSharing)
        {
            Assert.Throws<ArgumentException>(() => Create([_ => { }, _ => { }], PipeDistribution.WorkSharing));
            return;
        }

        var producers = AllowsManyProducers ? 2 : 1;
        var logs = Enumerable.Range(0, consumers).Select(_ => new DeliveryLog(producers, Small)).ToArray();
        await using var pipe = Create(logs.Select(l => (Action<long>)l.Record).ToArray(), PipeDistribution.WorkSharing, producers);

        await ProducerGroup.RunAsync(pipe, producers, Small);
        pipe.Complete();
        await pipe.Completion.DefaultTimeout();

        DeliveryLog.AssertExactlyOnceAcross(logs, producers, Small);
        Assert.All(logs, log => Assert.Equal(0, log.OutOfOrder));
        Assert.Equal(producers * Small, HandledCount(pipe));
    }

    [Fact]
    public async Task Complete_WithBacklog_DrainsEverythingAcceptedBeforeCompletion()
    {
        using var gate = new ManualResetEventSlim(false);
        long handled = 0, sum = 0;
        await using var pipe = Create(m =>
        {
            Assert.True(gate.Wait(TestTimeouts.Default));
            handled++;
            sum += m;
        });

        long accepted = 0;
        while (accepted < 100 && pipe.TryPost(accepted))
        {
            accepted++;
        }

        pipe.Complete();
        Assert.False(pipe.Completion.IsCompleted);
        gate.Set();
        await pipe.Completion.DefaultTimeout();

        Assert.Equal(accepted, handled);
        Assert.Equal(accepted * (accepted - 1) / 2, sum);
    }

    [Fact]
    public async Task TryPost_AfterComplete_ReturnsFalseAndPostThrows()
    {
        var handled = 0;
        await using var pipe = Create(_ => Interlocked.Increment(ref handled));
        Assert.True(pipe.TryPost(1));
        pipe.Complete();

        Assert.False(pipe.TryPost(2));
        Assert.Throws<PipeClosedException>(() => pipe.Post(3, TestContext.Current.CancellationToken));
        await Assert.ThrowsAsync<PipeClosedException>(() => pipe.PostAsync(4, TestContext.Current.CancellationToken).AsTask());
        await pipe.Completion.DefaultTimeout();
        Assert.Equal(1, handled);
    }

    [Fact]
    public async Task Complete_Twice_SecondCallThrowsAndTryCompleteReturnsFalse()
    {
        await using var pipe = Create(_ => { });
        Assert.True(pipe.TryComplete());
        Assert.False(pipe.TryComplete());
        Assert.Throws<InvalidOperationException>(pipe.Complete);
        await pipe.Completion.DefaultTimeout();
    }

    [Fact]
    public async Task Handler_Throws_CompletionFaultsAndReportsUnhandled()
    {
        var boom = new InvalidOperationException("boom");
        var handled = 0L;
        await using var pipe = Create(m =>
        {
            if (m == 3)
            {
                throw boom;
            }

            Interlocked.Increment(ref handled);
        });

        long accepted = 0;
        for (var i = 0; i < 1_000; i++)
        {
            if (pipe.TryPost(i))
            {
                accepted++;
            }
            else if (!IsBounded)
            {
                break; // faulted: refused from here on
            }
        }

        pipe.TryComplete();
        var fault = await Assert.ThrowsAsync<MessageHandlerException>(() => pipe.Completion.DefaultTimeout());

        Assert.Same(boom, fault.InnerException);
        Assert.Equal(3, Interlocked.Read(ref handled));
        Assert.Equal(accepted - 3, fault.UnhandledCount);
        Assert.Equal(accepted - 3, pipe.UnhandledCount);
        Assert.Equal(3, HandledCount(pipe)); // the message that threw is unhandled, not handled
        Assert.False(pipe.TryPost(5000));
    }

    [Fact]
    public async Task AbortToken_CancelledBeforeCreate_CompletesCancelledAndRefusesPosts()
    {
        // The token closes the pipe while it is being built: the close must still reach every consumer (for a pooled one,
        // a turn must be queued so it sees the end), or Completion would never finish.
        var handled = 0;
        var pipe = Pipe.Create<long>(
            Kind,
            [_ => Interlocked.Increment(ref handled), _ => Interlocked.Increment(ref handled)],
            BaseOptions with { AbortToken = new CancellationToken(canceled: true) });

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => pipe.Completion.DefaultTimeout());
        Assert.False(pipe.TryPost(1));
        Assert.Equal(0, handled);
    }

    [Fact]
    public async Task AbortToken_Cancelled_CompletionCancelledAndNothingSilentlyLost()
    {
        using var abort = new CancellationTokenSource();
        using var gate = new ManualResetEventSlim(false);
        var handled = 0L;
        var pipe = Pipe.Create<long>(
            Kind,
            _ =>
            {
                Assert.True(gate.Wait(TestTimeouts.Default));
                Interlocked.Increment(ref handled);
            },
            BaseOptions with { AbortToken = abort.Token });

        long accepted = 0;
        for (var i = 0; i < 50; i++)
        {
            if (pipe.TryPost(i))
            {
                accepted++;
            }
        }

        await abort.CancelAsync();
        gate.Set();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => pipe.Completion.DefaultTimeout());

        Assert.True(pipe.Completion.IsCanceled);
        Assert.Equal(accepted, Interlocked.Read(ref handled) + pipe.UnhandledCount);
        Assert.False(pipe.TryPost(99));
    }

    [Fact]
    public async Task DisposeAsync_WhileProducersRun_EveryAcceptedMessageHandled()
    {
        var producers = AllowsManyProducers ? 3 : 1;
        var handled = 0L;
        var pipe = Create(_ => Interlocked.Increment(ref handled), producers);
        var accepted = new long[producers];
        using var posting = new CountdownEvent(producers); // each producer had a post accepted: the dispose races live posts

        var tasks = Enumerable.Range(0, producers).Select(p => Task.Run(() =>
        {
            for (var i = 0; i < 1_000_000; i++)
            {
                try
                {
                    pipe.Post(i, TestContext.Current.CancellationToken);
                    if (++accepted[p] == 1)
                    {
                        posting.Signal();
                    }
                }
                catch (PipeClosedException)
                {
                    return;
                }
            }
        })).ToArray();

        Assert.True(posting.Wait(TestTimeouts.Default, TestContext.Current.CancellationToken));
        await pipe.DisposeAsync().AsTask().DefaultTimeout();
        await Task.WhenAll(tasks).DefaultTimeout();

        Assert.True(pipe.Completion.IsCompletedSuccessfully);
        Assert.Equal(accepted.Sum(), Interlocked.Read(ref handled));
        Assert.Equal(0, pipe.UnhandledCount);
    }

    [Fact]
    public async Task PostAsync_CancelledToken_ThrowsOperationCanceled()
    {
        await using var pipe = Create(_ => { });
        using var cancelled = new CancellationTokenSource();
        await cancelled.CancelAsync();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => pipe.PostAsync(1, cancelled.Token).AsTask());
    }

    [Fact]
    public async Task Post_CancelledToken_ThrowsOperationCanceledAndDeliversNothing()
    {
        var handled = 0L;
        var pipe = Create(_ => Interlocked.Increment(ref handled));
        using var cancelled = new CancellationTokenSource();
        await cancelled.CancelAsync();

        Assert.ThrowsAny<OperationCanceledException>(() => pipe.Post(1, cancelled.Token));
        pipe.Complete();
        await pipe.Completion.DefaultTimeout();

        Assert.Equal(0, Interlocked.Read(ref handled));
    }

    [Fact]
    public async Task PostAsync_BoundedAndFull_WaitsForRoomThenDelivers()
    {
        Assert.SkipUnless(IsBounded, $"{Kind} with these options is unbounded: it never waits for room.");

        using var gate = new ManualResetEventSlim(false);
        using var holding = new ManualResetEventSlim(false);
        var log = new DeliveryLog(1, 10_000);
        await using var pipe = Create(m =>
        {
            holding.Set();
            Assert.True(gate.Wait(TestTimeouts.Default));
            log.Record(m);
        });

        // Hold the consumer inside its first message, so the fill below measures the pipe's room and nothing frees it.
        pipe.Post(DeliveryLog.Message(0, 0), TestContext.Current.CancellationToken);
        Assert.True(holding.Wait(TestTimeouts.Default, TestContext.Current.CancellationToken));
        var next = 1;
        while (pipe.TryPost(DeliveryLog.Message(0, next)))
        {
            next++;
            Assert.True(next < 10_000, "a bounded pipe accepted more than 10,000 messages with its consumer held");
        }

        var waiting = pipe.PostAsync(DeliveryLog.Message(0, next), TestContext.Current.CancellationToken).AsTask();
        Assert.False(waiting.IsCompleted);
        gate.Set();
        await waiting.DefaultTimeout();
        pipe.Complete();
        await pipe.Completion.DefaultTimeout();

        Assert.Equal(next + 1, log.Count);
        Assert.Equal(DeliveryLog.ExpectedChecksum(1, next + 1), log.Checksum);
        Assert.Equal(0, log.OutOfOrder);
    }

    [Fact]
    public async Task PostAsync_BoundedFullThenCancelled_ThrowsAndMessageNotDelivered()
    {
        Assert.SkipUnless(IsBounded, $"{Kind} with these options is unbounded: it never waits for room.");

        using var gate = new ManualResetEventSlim(false);
        using var holding = new ManualResetEventSlim(false);
        var handled = 0L;
        await using var pipe = Create(_ =>
        {
            holding.Set();
            Assert.True(gate.Wait(TestTimeouts.Default));
            Interlocked.Increment(ref handled);
        });

        // Hold the consumer inside its first message, so the fill below measures the pipe's room and nothing frees it.
        pipe.Post(0, TestContext.Current.CancellationToken);
        Assert.True(holding.Wait(TestTimeouts.Default, TestContext.Current.CancellationToken));
        long accepted = 1;
        while (pipe.TryPost(accepted))
        {
            accepted++;
        }

        using var cancel = new CancellationTokenSource();
        var waiting = pipe.PostAsync(-1, cancel.Token).AsTask();
        await cancel.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => waiting.DefaultTimeout());
        gate.Set();
        pipe.Complete();
        await pipe.Completion.DefaultTimeout();

        Assert.Equal(accepted, Interlocked.Read(ref handled));
    }

    [Fact]
    public void Create_BadArguments_ThrowClearly()
    {
        Assert.Throws<ArgumentNullException>(() => Pipe.Create(Kind, (Action<long>)null!, BaseOptions));
        Assert.Throws<ArgumentNullException>(() => Pipe.Create(Kind, (IReadOnlyList<Action<long>>)null!, BaseOptions));
        Assert.Throws<ArgumentException>(() => Pipe.Create(Kind, Array.Empty<Action<long>>(), BaseOptions));
        Assert.Throws<ArgumentNullException>(() => Pipe.Create(Kind, new Action<long>[] { null! }, BaseOptions));
        Assert.Throws<ArgumentOutOfRangeException>(() => Pipe.Create<long>(Kind, _ => { }, BaseOptions with { Producers = 0 }));
        Assert.Throws<ArgumentOutOfRangeException>(() => Pipe.Create<long>(Kind, _ => { }, BaseOptions with { Capacity = 0 }));
        Assert.Throws<ArgumentOutOfRangeException>(() => Pipe.Create<long>((PipeKind)42, _ => { }, BaseOptions));
        Assert.Throws<ArgumentOutOfRangeException>(() => Pipe.Create<long>(Kind, _ => { }, BaseOptions with { FullMode = (PipeFullMode)42 }));
    }
}
