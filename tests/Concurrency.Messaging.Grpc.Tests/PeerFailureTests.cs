using System.Collections.Concurrent;

namespace Concurrency.Messaging.Grpc.Tests;

public sealed class PeerFailureTests
{
    [Theory]
    [MemberData(nameof(Messages.EveryMode), MemberType = typeof(Messages))]
    public async Task SendAsync_ServerStoppedAndRestartedMidStream_LosesNothing(PeerMode mode)
    {
        var ct = TestContext.Current.CancellationToken;
        var first = await PeerServer.StartAsync(cancellationToken: ct).DefaultTimeout();
        var url = first.Address.ToString();
        var second = (PeerServer?)null;
        await using var client = await PeerClient.ConnectAsync(url, Messages.Quick(mode), ct).DefaultTimeout();
        const int Senders = 8;
        const int PerSender = 300;
        var answered = 0;
        var restartAt = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);

        var senders = Enumerable.Range(0, Senders).Select(s => Task.Run(async () =>
        {
            long sum = 0;
            for (var i = 0; i < PerSender; i++)
            {
                sum += Messages.Number(await client.SendAsync(Messages.Numbered(s * PerSender + i + 1)));
                if (Interlocked.Increment(ref answered) == Senders * PerSender / 3)
                {
                    restartAt.TrySetResult();
                }
            }

            return sum;
        })).ToList();

        await restartAt.Task.DefaultTimeout();
        await first.DisposeAsync();
        second = await PeerServer.StartAsync(new PeerServerOptions { Urls = [url] }, ct).DefaultTimeout();
        await using (second)
        {
            var sums = await Task.WhenAll(senders).DefaultTimeout();

            const long N = Senders * PerSender;
            Assert.Equal(N * (N + 1) / 2, sums.Sum());
            Assert.True(client.ReconnectCount >= 1, "the client never saw the server go");
            Assert.True(second.HandledCount > 0, "the restarted server handled nothing");
        }
    }

    [Fact]
    public async Task SendAsync_ConnectionResetRepeatedly_ServerHandlesEachMessageExactlyOnce()
    {
        var ct = TestContext.Current.CancellationToken;
        var handled = new ConcurrentDictionary<long, int>(); // request number -> times its handler ran
        var options = new PeerServerOptions
        {
            Handler = async (request, token) =>
            {
                handled.AddOrUpdate(Messages.Number(request), 1, (_, times) => times + 1);
                await Task.Yield();
                return request;
            },
        };
        await using var server = await PeerServer.StartAsync(options, ct).DefaultTimeout();
        await using var proxy = new LoopbackProxy(server.Address);
        await using var client = await PeerClient.ConnectAsync(proxy.Address.ToString(), Messages.Quick() with { BufferSize = 64, MaxBatchCount = 16 }, ct).DefaultTimeout();
        const int N = 20_000;

        var sends = Enumerable.Range(1, N).Select(i => client.SendAsync(Messages.Numbered(i))).ToList();
        var resets = 0;
        while (sends.Any(send => !send.IsCompleted) && resets < 10)
        {
            await Task.Delay(30, ct);
            proxy.Reset();
            resets++;
        }

        var numbers = await Task.WhenAll(sends).DefaultTimeout();

        Assert.Equal((long)N * (N + 1) / 2, numbers.Select(Messages.Number).Sum());
        Assert.Equal(N, server.HandledCount);
        Assert.Equal(N, handled.Count); // every message handled, and none of them twice
        Assert.DoesNotContain(handled, pair => pair.Value != 1);
        Assert.True(client.ReconnectCount >= 1, $"no reconnect after {resets} resets");
    }

    [Fact]
    public async Task SendAsync_HalfOpenStream_IsDroppedByHeartbeatAndTheMessageGetsItsReplyOnANewStream()
    {
        var ct = TestContext.Current.CancellationToken;
        await using var server = await PeerServer.StartAsync(cancellationToken: ct).DefaultTimeout();
        await using var proxy = new LoopbackProxy(server.Address);
        await using var client = await PeerClient.ConnectAsync(proxy.Address.ToString(), Messages.Quick(), ct).DefaultTimeout();
        Assert.Equal(1, Messages.Number(await client.SendAsync(Messages.Numbered(1), ct).DefaultTimeout()));

        proxy.Freeze();
        var reply = await client.SendAsync(Messages.Numbered(2), ct).DefaultTimeout();

        Assert.Equal(2, Messages.Number(reply));
        Assert.True(client.HalfOpenCount >= 1, "the frozen stream was not taken as half-open");
        Assert.True(proxy.Accepted >= 2, "the client did not open a new connection");
    }

    [Fact]
    public async Task SendAsync_ServerGoneForGood_CallersGetTimeoutErrorsNotHangs()
    {
        var ct = TestContext.Current.CancellationToken;
        var server = await PeerServer.StartAsync(cancellationToken: ct).DefaultTimeout();
        await using var client = await PeerClient.ConnectAsync(server.Address.ToString(), Messages.Quick() with { DeliveryTimeout = TimeSpan.FromSeconds(1) }, ct).DefaultTimeout();
        await server.DisposeAsync();

        var sends = Enumerable.Range(0, 50).Select(i => client.SendAsync(Messages.Numbered(i))).ToList();
        foreach (var send in sends)
        {
            var error = await Assert.ThrowsAsync<PeerDeliveryException>(() => send).DefaultTimeout();
            Assert.Equal(PeerDeliveryFailure.Timeout, error.Reason);
        }

        Assert.Equal(50, client.TimedOutCount);
    }

    [Fact]
    public async Task ConnectAsync_NothingListening_FailsWithinTheConnectTimeout()
    {
        var ct = TestContext.Current.CancellationToken;
        string url;
        await using (var gone = await PeerServer.StartAsync(cancellationToken: ct).DefaultTimeout())
        {
            url = gone.Address.ToString();
        }

        var error = await Assert.ThrowsAsync<PeerDeliveryException>(
            () => PeerClient.ConnectAsync(url, Messages.Quick() with { ConnectTimeout = TimeSpan.FromMilliseconds(500) }, ct)).DefaultTimeout();

        Assert.Equal(PeerDeliveryFailure.Timeout, error.Reason);
        Assert.Contains(url.TrimEnd('/'), error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("")]
    [InlineData("127.0.0.1:5000")]
    [InlineData("ftp://127.0.0.1:5000")]
    [InlineData("not an address")]
    public void Create_MalformedAddress_ThrowsArgumentException(string address)
    {
        var error = Assert.Throws<ArgumentException>(() => PeerClient.Create(address));
        Assert.Equal("address", error.ParamName);
    }
}
