namespace Concurrency.Messaging.Grpc.Tests;

public sealed class PeerLifecycleTests
{
    [Fact]
    public async Task SendAsync_CancelledWhileAwaitingTheReply_CancelsOnlyThatCaller()
    {
        var ct = TestContext.Current.CancellationToken;
        var release = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var options = new PeerServerOptions
        {
            Handler = async (request, token) =>
            {
                if (request.Type == "slow")
                {
                    await release.Task.WaitAsync(token);
                }

                return request;
            },
        };
        await using var peers = await PeerPair.StartAsync(options);
        var client = peers.Client;
        using var cancel = new CancellationTokenSource();

        var slow = client.SendAsync(Messages.Numbered(1, "slow"), cancel.Token);
        await cancel.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => slow).DefaultTimeout();
        release.SetResult();

        Assert.Equal(2, Messages.Number(await client.SendAsync(Messages.Numbered(2), ct).DefaultTimeout()));
    }

    [Fact]
    public async Task DisposeAsync_WithRepliesOutstanding_FailsThemAsClosedAtOnce()
    {
        var ct = TestContext.Current.CancellationToken;
        var never = new TaskCompletionSource();
        await using var server = await PeerServer.StartAsync(new PeerServerOptions { Handler = async (request, token) => { await never.Task.WaitAsync(token); return request; } }, ct).DefaultTimeout();
        var client = await PeerClient.ConnectAsync(server.Address.ToString(), Messages.Quick() with { BufferSize = 4 }, ct).DefaultTimeout();
        var sends = Enumerable.Range(0, 100).Select(i => client.SendAsync(Messages.Numbered(i))).ToList();

        await client.DisposeAsync().AsTask().DefaultTimeout();

        foreach (var send in sends)
        {
            var error = await Assert.ThrowsAsync<PeerDeliveryException>(() => send).DefaultTimeout();
            Assert.Equal(PeerDeliveryFailure.Closed, error.Reason);
        }
    }

    [Fact]
    public async Task CompleteAsync_TokenFiresWhileWaiting_StopsAndFailsWhatWaits()
    {
        var ct = TestContext.Current.CancellationToken;
        var never = new TaskCompletionSource();
        await using var peers = await PeerPair.StartAsync(new PeerServerOptions { Handler = async (request, token) => { await never.Task.WaitAsync(token); return request; } });
        var client = peers.Client;
        var send = client.SendAsync(Messages.Numbered(1), ct);
        using var cancel = new CancellationTokenSource(TimeSpan.FromMilliseconds(200));

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => client.CompleteAsync(cancel.Token)).DefaultTimeout();

        var error = await Assert.ThrowsAsync<PeerDeliveryException>(() => send).DefaultTimeout();
        Assert.Equal(PeerDeliveryFailure.Closed, error.Reason);
    }

    [Fact]
    public async Task CompleteAsync_SendStillWaitingForRoom_FailsClosedAsNotSent()
    {
        var ct = TestContext.Current.CancellationToken;
        var release = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        await using var peers = await PeerPair.StartAsync(new PeerServerOptions { Handler = async (request, token) => { await release.Task.WaitAsync(token); return request; } }, Messages.Quick(PeerMode.Sync) with { BufferSize = 1 });
        var (server, client) = peers;
        var first = client.SendAsync(Messages.Numbered(1), ct);
        var sends = Enumerable.Range(2, 5).Select(i => client.SendAsync(Messages.Numbered(i), ct)).ToList();

        var completing = client.CompleteAsync(ct);
        release.SetResult();
        await completing.DefaultTimeout();

        Assert.Equal(1, Messages.Number(await first.DefaultTimeout()));
        var outcomes = await Task.WhenAll(sends.Select(async send =>
        {
            try
            {
                return Messages.Number(await send);
            }
            catch (PeerDeliveryException error) when (error.Reason == PeerDeliveryFailure.Closed && error.Message.Contains("not sent", StringComparison.Ordinal))
            {
                return -1;
            }
        })).DefaultTimeout();
        Assert.Contains(-1, outcomes);
        Assert.Equal(server.HandledCount - 1, outcomes.Count(number => number > 0));
    }

    [Fact]
    public async Task SendAsync_AfterCompleteAsync_FailsClosed()
    {
        var ct = TestContext.Current.CancellationToken;
        await using var peers = await PeerPair.StartAsync();
        var client = peers.Client;
        await client.CompleteAsync(ct).DefaultTimeout();

        var error = await Assert.ThrowsAsync<PeerDeliveryException>(() => client.SendAsync(Messages.Numbered(1), ct)).DefaultTimeout();

        Assert.Equal(PeerDeliveryFailure.Closed, error.Reason);
    }

    [Theory]
    [InlineData(PeerMode.Async)]
    [InlineData(PeerMode.InOrder)]
    public async Task CompleteAsync_WhileRepliesAreInFlight_EveryCallerGetsItsReply(PeerMode mode)
    {
        // The listener/messenger close race: the client closes while the server is still writing replies. The safe order
        // (end the request stream, read replies to their end, then dispose) loses none, in every one of these rounds.
        var ct = TestContext.Current.CancellationToken;
        await using var server = await PeerServer.StartAsync(cancellationToken: ct).DefaultTimeout();
        for (var round = 0; round < 20; round++)
        {
            // Room for every send, so that all are accepted before the close begins.
            // Steady timings: a reconnect here can only be the close going wrong, never a heartbeat read late under load.
            var client = await PeerClient.ConnectAsync(server.Address.ToString(), Messages.Steady(mode) with { BufferSize = 4096 }, ct).DefaultTimeout();
            var sends = Enumerable.Range(0, 2000).Select(i => client.SendAsync(Messages.Numbered(i))).ToList();

            await client.CompleteAsync(ct).DefaultTimeout();
            await client.DisposeAsync();

            var numbers = await Task.WhenAll(sends).DefaultTimeout();
            Assert.Equal(1999L * 2000 / 2, numbers.Select(Messages.Number).Sum());
            Assert.Equal(0, client.ReconnectCount);
        }
    }
}
