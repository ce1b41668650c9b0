namespace Concurrency.Messaging.Grpc.Tests;

/// <summary>Async mode completes a batch of callers on one pool work item; a continuation that blocks must not hold the rest forever.</summary>
public sealed class ReplyDeliveryTests
{
    private static PendingSend Send(long number, ReplyDelivery replies) => new(Messages.Numbered(number), 40, long.MaxValue, null, replies);

    [Fact]
    public async Task CheckProgress_AContinuationBlocksOnALaterSend_AnotherWorkItemCompletesIt()
    {
        var replies = new ReplyDelivery();
        var first = Send(1, replies);
        var second = Send(2, replies);
        var blocking = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);

        // Runs inline on the delivery's work item and waits there for the send queued behind its own.
        var unblocked = first.Task.ContinueWith(
            _ =>
            {
                blocking.SetResult();
                return second.Task.Wait(TimeSpan.FromSeconds(30));
            },
            CancellationToken.None,
            TaskContinuationOptions.ExecuteSynchronously,
            TaskScheduler.Default);
        Assert.True(first.Reply(Messages.Numbered(1)));
        Assert.True(second.Reply(Messages.Numbered(2)));
        Assert.False(first.Task.IsCompleted); // the listener's replies wait for the delivery

        replies.Enqueue([first, second]);
        await blocking.Task.DefaultTimeout();
        replies.CheckProgress(); // the first look sees a send completed since the start
        Assert.False(second.Task.IsCompleted);
        replies.CheckProgress(); // nothing since: another work item carries on

        Assert.True(await unblocked.DefaultTimeout());
        Assert.Equal(2, Messages.Number(await second.Task.DefaultTimeout()));
    }

    [Fact]
    public async Task Enqueue_ManyBatches_EverySendCompletesWithItsOwnReply_AndTheQueueDrains()
    {
        var replies = new ReplyDelivery();
        var sends = Enumerable.Range(0, 1_000).Select(i => Send(i, replies)).ToList();
        var continuations = 0;
        foreach (var send in sends)
        {
            send.Reply(send.Message);
            _ = send.Task.ContinueWith(_ => Interlocked.Increment(ref continuations), CancellationToken.None, TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
        }

        foreach (var batch in sends.Chunk(100))
        {
            replies.Enqueue([.. batch]);
            replies.CheckProgress();
        }

        var numbers = await Task.WhenAll(sends.Select(send => send.Task)).DefaultTimeout();
        await replies.WhenDrainedAsync().DefaultTimeout();
        Assert.Equal(Enumerable.Range(0, 1_000).Select(i => (long)i), numbers.Select(Messages.Number));
        Assert.Equal(1_000, Volatile.Read(ref continuations));
    }

    [Fact]
    public async Task AsyncMode_ACallerBlocksOnAnotherCallersReply_BothComplete()
    {
        var ct = TestContext.Current.CancellationToken;
        var release = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var options = new PeerServerOptions { Handler = async (request, token) => { await release.Task.WaitAsync(token); return request; } };
        await using var peers = await PeerPair.StartAsync(options, Messages.Quick(PeerMode.Async));
        var client = peers.Client;

        // Both held by the handler until the continuation is in place; then the first caller's continuation (inline on the
        // delivery's work item) waits synchronously for the second: the sweeper must notice and carry on without it.
        var first = client.SendAsync(Messages.Numbered(1), ct);
        var second = client.SendAsync(Messages.Numbered(2), ct);
        var unblocked = first.ContinueWith(
            _ => second.Wait(TimeSpan.FromSeconds(30), CancellationToken.None),
            CancellationToken.None,
            TaskContinuationOptions.ExecuteSynchronously,
            TaskScheduler.Default);
        Assert.False(first.IsCompleted);
        release.SetResult();

        Assert.True(await unblocked.DefaultTimeout());
        Assert.Equal(2, Messages.Number(await second.DefaultTimeout()));
        await client.CompleteAsync(ct).DefaultTimeout();
    }

    [Fact]
    public async Task AsyncMode_ACancelledCaller_ContinuesOnThePool_NotInsideCancel()
    {
        var release = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var options = new PeerServerOptions { Handler = async (request, token) => { await release.Task.WaitAsync(token); return request; } };
        await using var peers = await PeerPair.StartAsync(options, Messages.Quick(PeerMode.Async));
        var client = peers.Client;
        using var cancel = new CancellationTokenSource();
        var cancellingThread = -1;
        var ranInsideCancel = true;

        var send = client.SendAsync(Messages.Numbered(1), cancel.Token);
        var continued = send.ContinueWith(
            _ => ranInsideCancel = Environment.CurrentManagedThreadId == Volatile.Read(ref cancellingThread),
            CancellationToken.None,
            TaskContinuationOptions.ExecuteSynchronously,
            TaskScheduler.Default);

        // Cancel runs the token's callbacks on this thread: a continuation run inline by them would run here, inside it.
        Volatile.Write(ref cancellingThread, Environment.CurrentManagedThreadId);
        cancel.Cancel();
        Volatile.Write(ref cancellingThread, -1);
        release.SetResult();

        await continued.DefaultTimeout();
        Assert.True(send.IsCanceled);
        Assert.False(ranInsideCancel);
    }
}
