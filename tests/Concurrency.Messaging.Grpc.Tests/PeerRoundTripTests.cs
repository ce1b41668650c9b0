using Concurrency.Messaging.Actors;
using Concurrency.Messaging.Pipes;

namespace Concurrency.Messaging.Grpc.Tests;

public sealed class PeerRoundTripTests
{
    [Theory]
    [MemberData(nameof(Messages.EveryMode), MemberType = typeof(Messages))]
    public async Task SendAsync_EchoServer_EveryReplyCarriesItsOwnPayload(PeerMode mode)
    {
        await using var peers = await PeerPair.StartAsync(client: Messages.Quick(mode));
        var (server, client) = peers;

        var replies = await Task.WhenAll(Enumerable.Range(0, 500).Select(i => client.SendAsync(Messages.Numbered(i)))).DefaultTimeout();

        Assert.Equal(Enumerable.Range(0, 500).Select(i => (long)i), replies.Select(Messages.Number));
        Assert.All(replies, reply => Assert.Equal("number", reply.Type));
        Assert.Equal(500, server.HandledCount);
        await client.CompleteAsync(TestContext.Current.CancellationToken).DefaultTimeout();
    }

    [Fact]
    public async Task SendAsync_InOrderMode_CompletesCallersInSendOrderThroughCancelsAndHandlerErrors()
    {
        var options = new PeerServerOptions
        {
            Handler = (request, _) => Messages.Number(request) % 7 == 3
                ? throw new InvalidOperationException("sevens")
                : new ValueTask<PeerMessage>(request),
        };

        // Room for every send: a send still waiting for room when its token fires was never sent, and has no place in the order.
        await using var peers = await PeerPair.StartAsync(options, Messages.Quick(PeerMode.InOrder) with { BufferSize = 4096 });
        var client = peers.Client;
        var completed = new List<long>();
        var sends = new List<Task>();
        using var cancelled = new CancellationTokenSource();

        for (var i = 0; i < 3000; i++)
        {
            var number = (long)i;
            var token = i % 11 == 5 && i < 1500 ? cancelled.Token : CancellationToken.None;
            var send = client.SendAsync(Messages.Numbered(number), token);

            // ExecuteSynchronously: the continuation runs on the thread that completes the task, so this list records
            // the order in which the client completed them.
            sends.Add(send.ContinueWith(_ => completed.Add(number), CancellationToken.None, TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default));
            if (i == 1500)
            {
                await cancelled.CancelAsync();
            }
        }

        await Task.WhenAll(sends).DefaultTimeout();

        Assert.Equal(Enumerable.Range(0, 3000).Select(i => (long)i), completed);
    }

    [Fact]
    public async Task SendAsync_FiveThousandConcurrentSenders_AllRepliesArriveOnceAndSumMatches()
    {
        await using var peers = await PeerPair.StartAsync();
        var (server, client) = peers;

        var senders = Enumerable.Range(1, 5000).Select(i => Task.Run(async () => Messages.Number(await client.SendAsync(Messages.Numbered(i)))));
        var numbers = await Task.WhenAll(senders).DefaultTimeout();

        Assert.Equal(5000L * 5001 / 2, numbers.Sum());
        Assert.Equal(5000, numbers.Distinct().Count());
        Assert.Equal(5000, server.HandledCount);
        Assert.Equal(0, server.DuplicateCount);
    }

    [Fact]
    public async Task PostTo_PipeHandler_EveryRequestReachesThePipeAndIsAccepted()
    {
        long sum = 0;
        var received = 0;
        await using var pipe = Pipe.Create<PeerMessage>(PipeKind.BatchDrainQueue, message =>
        {
            Interlocked.Add(ref sum, Messages.Number(message));
            Interlocked.Increment(ref received);
        });
        await using var peers = await PeerPair.StartAsync(new PeerServerOptions { Handler = PeerHandlers.PostTo(pipe) });
        var client = peers.Client;

        var replies = await Task.WhenAll(Enumerable.Range(1, 1000).Select(i => client.SendAsync(Messages.Numbered(i)))).DefaultTimeout();
        pipe.Complete();
        await pipe.Completion.DefaultTimeout();

        Assert.All(replies, reply => Assert.Equal(PeerHandlers.AcceptedType, reply.Type));
        Assert.Equal(1000, received);
        Assert.Equal(1000L * 1001 / 2, sum);
    }

    [Fact]
    public async Task AskActor_ActorHandler_RepliesComeFromTheActorAndItsStateNeedsNoLock()
    {
        await using var system = new ActorSystem();
        var tally = system.Spawn(() => new Tally());
        await using var peers = await PeerPair.StartAsync(new PeerServerOptions { Handler = PeerHandlers.AskActor(tally, TimeSpan.FromSeconds(10)) });
        var client = peers.Client;

        var replies = await Task.WhenAll(Enumerable.Range(1, 500).Select(i => client.SendAsync(Messages.Numbered(i)))).DefaultTimeout();

        // Each reply carries the running total when the actor handled it: 500 distinct totals, the largest the full sum.
        var totals = replies.Select(Messages.Number).ToList();
        Assert.Equal(500, totals.Distinct().Count());
        Assert.Equal(500L * 501 / 2, totals.Max());
    }

    private sealed class Tally : Actor<PeerMessage>
    {
        private long _total; // only this actor's turns touch it

        protected override void Receive(PeerMessage message)
        {
            _total += Messages.Number(message);
            Context.Reply(Messages.Numbered(_total, "total"));
        }
    }
}
