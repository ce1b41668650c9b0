using System.Collections.Concurrent;

namespace Concurrency.Messaging.Grpc.Tests;

/// <summary>The client's buffer between callers and the pump: capacity, the line of sends waiting for room, and how a send leaves it.</summary>
public sealed class SendBufferTests
{
    private static PendingSend Send(long number, InOrderDelivery? delivery = null) => new(Messages.Numbered(number), 40, long.MaxValue, delivery);

    private static List<long> TakeAll(SendBuffer buffer)
    {
        var taken = new List<long>();
        while (buffer.TryTake(out var send))
        {
            taken.Add(Messages.Number(send.Message));
        }

        return taken;
    }

    /// <summary>A buffer of one holding send 1 (for <paramref name="delivery"/>), with <paramref name="waiting"/> in line for room behind it, in order.</summary>
    private static SendBuffer FullWith(PendingSend[] waiting, InOrderDelivery? delivery = null)
    {
        var buffer = new SendBuffer(1);
        Assert.Equal(SendAdmission.Added, buffer.Add(Send(1, delivery)));
        foreach (var send in waiting)
        {
            Assert.Equal(SendAdmission.Waiting, buffer.Add(send));
        }

        return buffer;
    }

    [Fact]
    public void Add_PastCapacity_WaitsInCallOrder_AndTakingLetsTheOldestIn()
    {
        var buffer = new SendBuffer(2);

        Assert.Equal(SendAdmission.Added, buffer.Add(Send(1)));
        Assert.Equal(SendAdmission.Added, buffer.Add(Send(2)));
        var third = Send(3);
        Assert.Equal(SendAdmission.Waiting, buffer.Add(third));
        Assert.Equal(SendAdmission.Waiting, buffer.Add(Send(4)));
        Assert.True(third.WaitingForRoom);

        Assert.True(buffer.TryTake(out var first));
        Assert.Equal(1, Messages.Number(first.Message));
        Assert.False(third.WaitingForRoom); // let in by the take, on the taker's thread

        // While others wait, a new send queues behind them even if a take just made room.
        Assert.Equal(SendAdmission.Waiting, buffer.Add(Send(5)));
        Assert.Equal([2, 3, 4, 5], TakeAll(buffer));
    }

    [Fact]
    public void TryAdd_NeverWaits_RefusedWhenFullOrWhileOthersWait()
    {
        var buffer = new SendBuffer(1);

        Assert.True(buffer.TryAdd(Send(1)));
        Assert.False(buffer.TryAdd(Send(2)));
        Assert.Equal(SendAdmission.Waiting, buffer.Add(Send(3)));
        Assert.True(buffer.TryTake(out _));
        Assert.False(buffer.TryAdd(Send(4))); // the room went to the waiting send
        Assert.Equal([3], TakeAll(buffer));
    }

    [Fact]
    public void TryCancelWaiting_TakesTheSendOutOfTheLine_UnlessItWasLetIn()
    {
        var (cancelled, next) = (Send(2), Send(3));
        var buffer = FullWith([cancelled, next]);

        Assert.True(buffer.TryCancelWaiting(cancelled));
        Assert.True(buffer.TryCancelWaiting(cancelled)); // still never let in: a second refusal loses to the first on the send itself
        Assert.False(cancelled.WaitingForRoom);
        Assert.True(buffer.TryTake(out _));
        Assert.False(buffer.TryCancelWaiting(next)); // let in: past the line, its token cancels only its wait for the reply

        Assert.Equal([3], TakeAll(buffer));
    }

    [Fact]
    public void Complete_RefusesTheWaiting_KeepsWhatIsInForThePump()
    {
        var (waiting, cancelled) = (Send(2), Send(3));
        var buffer = FullWith([waiting, cancelled]);
        buffer.TryCancelWaiting(cancelled);

        var refused = buffer.Complete();

        Assert.Same(waiting, Assert.Single(refused));
        Assert.False(waiting.WaitingForRoom);
        Assert.Empty(buffer.Complete()); // once
        Assert.Equal(SendAdmission.Closed, buffer.Add(Send(4)));
        Assert.False(buffer.TryAdd(Send(5)));
        Assert.False(buffer.IsFinished);
        Assert.Equal([1], TakeAll(buffer));
        Assert.True(buffer.IsFinished);
    }

    [Fact]
    public async Task WaitToTakeAsync_FinishesOnAnAdd_OnComplete_OrThrowsOnItsToken()
    {
        var ct = TestContext.Current.CancellationToken;
        var buffer = new SendBuffer(4);

        var waiting = buffer.WaitToTakeAsync(ct);
        Assert.False(waiting.IsCompleted);
        buffer.Add(Send(1));
        await waiting.DefaultTimeout();
        Assert.True(buffer.WaitToTakeAsync(ct).IsCompletedSuccessfully); // something to take: at once

        Assert.True(buffer.TryTake(out _));
        using var broken = new CancellationTokenSource();
        var cut = buffer.WaitToTakeAsync(broken.Token);
        await broken.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => cut).DefaultTimeout();

        var closing = buffer.WaitToTakeAsync(ct);
        buffer.Complete();
        await closing.DefaultTimeout();
        Assert.True(buffer.IsFinished);
    }

    [Fact]
    public async Task PendingSend_InOrder_CancelledOrRefusedWhileWaiting_CompletesAtOnce_OutsideTheLine()
    {
        await using var delivery = new InOrderDelivery();
        var (cancelled, refused) = (Send(2, delivery), Send(3, delivery));
        var buffer = FullWith([cancelled, refused], delivery);
        using var cancel = new CancellationTokenSource();
        cancelled.Watch(buffer, cancel.Token);
        refused.Watch(buffer, TestContext.Current.CancellationToken);

        // Never numbered, so never in the in-order line: each is completed by itself, not by the delivery loop.
        await cancel.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => cancelled.Task).DefaultTimeout();
        foreach (var send in buffer.Complete())
        {
            send.Refuse(new InvalidOperationException("closed"));
        }

        await Assert.ThrowsAsync<InvalidOperationException>(() => refused.Task).DefaultTimeout();
        Assert.Equal([1], TakeAll(buffer));
    }

    [Fact]
    public async Task PendingSend_InOrder_TokenFiresBetweenCompleteAndItsRefusal_StillCompletes()
    {
        await using var delivery = new InOrderDelivery();
        var waiting = Send(2, delivery);
        var buffer = FullWith([waiting], delivery);
        using var cancel = new CancellationTokenSource();
        waiting.Watch(buffer, cancel.Token);

        // The closing client has taken it out of the line but not refused it yet when the token fires: it was never
        // numbered, so the token must refuse it too, not leave it for an in-order line it never joined.
        var refused = buffer.Complete();
        await cancel.CancelAsync();
        foreach (var send in refused)
        {
            send.Refuse(new InvalidOperationException("closed"));
        }

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => waiting.Task).DefaultTimeout();
    }

    [Fact]
    public void TryCancelWaiting_ManyCancelled_TheLineStillLetsTheRestInInOrder()
    {
        var buffer = new SendBuffer(1);
        buffer.Add(Send(0));
        var line = Enumerable.Range(1, 20).Select(i => Send(i)).ToList();
        line.ForEach(send => buffer.Add(send));

        // Enough cancelled to make the buffer rebuild its line, some before and some after the survivors.
        foreach (var send in line.Where(send => Messages.Number(send.Message) % 5 != 0))
        {
            Assert.True(buffer.TryCancelWaiting(send));
        }

        Assert.Equal([0, 5, 10, 15, 20], TakeAll(buffer));
    }

    [Fact]
    public void Race_ProducersCancellingAndAClose_EverySendLeavesOnce_TakenInEachProducersOrder()
    {
        const int Producers = 4;
        const int PerProducer = 5_000;
        var buffer = new SendBuffer(8);
        var cancelled = new ConcurrentBag<PendingSend>();
        var closed = new ConcurrentBag<PendingSend>();
        var taken = new List<PendingSend>();
        using var halfway = new CountdownEvent(Producers);
        using var closeDone = new ManualResetEventSlim();

        // The pump takes until the buffer is finished; each producer gives up on every 7th send at once (its token
        // firing while the send may still wait), and the main thread closes the buffer once every producer is halfway.
        // (An assertion failing on a producer thread would end the test run, not pass silently.)
        var pump = new Thread(() =>
        {
            while (!buffer.IsFinished)
            {
                if (buffer.TryTake(out var send))
                {
                    taken.Add(send);
                }
                else
                {
                    Thread.Yield();
                }
            }
        });
        var producers = Enumerable.Range(0, Producers).Select(producer => new Thread(() =>
        {
            for (var i = 0; i < PerProducer; i++)
            {
                var send = Send(((long)producer * PerProducer) + i);
                if (buffer.Add(send) == SendAdmission.Closed)
                {
                    closed.Add(send);
                }
                else if (i % 7 == 0 && buffer.TryCancelWaiting(send))
                {
                    cancelled.Add(send);
                }

                if (i == PerProducer / 2)
                {
                    halfway.Signal();
                    if (producer % 2 == 0)
                    {
                        // Half the producers go on only after the close, so some sends are surely turned away; the
                        // others race it.
                        Assert.True(closeDone.Wait(TimeSpan.FromSeconds(30), TestContext.Current.CancellationToken));
                    }
                }
            }
        })).ToList();

        pump.Start();
        producers.ForEach(thread => thread.Start());
        Assert.True(halfway.Wait(TimeSpan.FromSeconds(30), TestContext.Current.CancellationToken));
        var refused = buffer.Complete();
        closeDone.Set();
        producers.ForEach(thread => Assert.True(thread.Join(TimeSpan.FromSeconds(30))));
        Assert.True(pump.Join(TimeSpan.FromSeconds(30)));

        // Each send left exactly one way: taken by the pump, refused by the close, given up while waiting, or turned
        // away after the close. (A send refused by the close may also be given up by its token: both say "not sent".)
        var notSent = refused.Concat(cancelled).Concat(closed).Select(send => Messages.Number(send.Message)).ToHashSet();
        var takenNumbers = taken.Select(send => Messages.Number(send.Message)).ToList();
        Assert.Equal(takenNumbers.Count, takenNumbers.Distinct().Count());
        Assert.DoesNotContain(takenNumbers, notSent.Contains);
        Assert.Equal(Producers * PerProducer, takenNumbers.Count + notSent.Count);
        Assert.NotEmpty(closed);
        foreach (var producer in takenNumbers.GroupBy(number => number / PerProducer))
        {
            Assert.Equal(producer.Order(), producer);
        }
    }

    [Fact]
    public async Task SendAsync_CancelledWhileWaitingForRoom_IsCancelledAndNeverSent()
    {
        var ct = TestContext.Current.CancellationToken;
        var release = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var started = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var options = new PeerServerOptions
        {
            Handler = async (request, token) =>
            {
                started.TrySetResult();
                await release.Task.WaitAsync(token);
                return request;
            },
        };
        await using var peers = await PeerPair.StartAsync(options, Messages.Quick(PeerMode.Sync) with { BufferSize = 1 });
        var (server, client) = peers;

        // Sync mode: the first is written and the pump waits for its reply, held by the handler; the second fills the
        // buffer; the third, fourth and fifth wait for room behind it.
        var first = client.SendAsync(Messages.Numbered(1), ct);
        await started.Task.DefaultTimeout();
        var second = client.SendAsync(Messages.Numbered(2), ct);
        using var cancel = new CancellationTokenSource();
        var third = client.SendAsync(Messages.Numbered(3), cancel.Token);
        var fourth = client.SendAsync(Messages.Numbered(4), ct);
        var fifth = client.SendAsync(Messages.Numbered(5), ct);
        await cancel.CancelAsync();
        release.SetResult();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => third).DefaultTimeout();
        Assert.Equal([1, 2, 4, 5], (await Task.WhenAll(first, second, fourth, fifth).DefaultTimeout()).Select(Messages.Number));
        await client.CompleteAsync(ct).DefaultTimeout();
        Assert.Equal(4, server.HandledCount);
    }
}
