using System.Reactive.Linq;
using Concurrency.Messaging.Actors;
using Concurrency.Messaging.Connectors;
using Concurrency.Messaging.Grpc;
using Concurrency.Messaging.Linq;
using Concurrency.Messaging.Pipes;

// 1. A connector: two components that know nothing of each other, wired by one injected connector.
using var orders = Connector.Create<int>();
var desk = new TradingDesk(orders.Input);
var book = new RiskBook(orders.Output.Where(quantity => quantity >= 100));
desk.Trade(50);
desk.Trade(150);
desk.Trade(300);
desk.Close();
Console.WriteLine($"connector: risk book saw {book.Large} large trades totalling {book.Total}");

// 2. A pipe: one producer posts a million messages, a consumer thread sums them; Completion says all were handled.
const int count = 1_000_000;
long sum = 0;
await using (var pipe = Pipe.Create<long>(PipeKind.BatchDrainQueue, m => sum += m))
{
    for (long i = 0; i < count; i++)
    {
        pipe.Post(i);
    }

    pipe.Complete();
    await pipe.Completion;
}

var expected = (long)count * (count - 1) / 2;
Console.WriteLine($"pipe: handled {count:N0} messages, sum {sum} (expected {expected})");

// 3. The same hop as an Rx operator: ObserveOnRing() where ObserveOn(scheduler) used to be.
var received = await Observable.Range(0, count).ObserveOnRing().Count();
Console.WriteLine($"ObserveOnRing: {received:N0} of {count:N0} delivered");

// 4. An actor: told from any thread, asked for its state; one message at a time, so its state needs no lock.
await using var system = new ActorSystem();
var counter = system.Spawn(() => new Counter());
for (var i = 1; i <= 100; i++)
{
    counter.Tell(i);
}

var counted = await counter.Ask<long>(0, TimeSpan.FromSeconds(10)); // after the 100 tells: one sender's order is kept
Console.WriteLine($"actor: counted {counted} (expected 5050)");

// 5. Two peers over gRPC on loopback: the client's pump batches what 1,000 callers send; each caller gets its own reply.
await using var server = await PeerServer.StartAsync(new PeerServerOptions { Handler = PeerHandlers.Echo });
await using var client = await PeerClient.ConnectAsync(server.Address.ToString(), new PeerClientOptions { Mode = PeerMode.Async });
var greeting = await client.SendAsync(new PeerMessage("greeting", "me", "hello"u8.ToArray()));
var echoed = await Task.WhenAll(Enumerable.Range(0, 1_000).Select(i => client.SendAsync(new PeerMessage("number", "me", BitConverter.GetBytes(i)))));
await client.CompleteAsync(); // every reply in, then the stream closed in the safe order
var echoedSum = echoed.Sum(reply => (long)BitConverter.ToInt32(reply.Payload.Span));
Console.WriteLine($"grpc: {System.Text.Encoding.UTF8.GetString(greeting.Payload.Span)}, {echoed.Length:N0} replies summing to {echoedSum} (expected 499500) in {client.WriteCount} writes");

return sum == expected && received == count && book.Total == 450 && counted == 5050 && echoedSum == 499_500 ? 0 : 1;

/// <summary>An actor that adds what it is told and replies with the total when asked.</summary>
internal sealed class Counter : Actor<long>
{
    private long _total; // only this actor's turns touch it

    protected override void Receive(long amount)
    {
        _total += amount;
        if (Context.HasPendingReply)
        {
            Context.Reply(_total);
        }
    }
}

/// <summary>The producer component: sees only an observer.</summary>
internal sealed class TradingDesk(IObserver<int> trades)
{
    public void Trade(int quantity) => trades.OnNext(quantity);

    public void Close() => trades.OnCompleted();
}

/// <summary>The consumer component: sees only an observable.</summary>
internal sealed class RiskBook
{
    public RiskBook(IObservable<int> largeTrades) => largeTrades.Subscribe(q => { Large++; Total += q; });

    public int Large { get; private set; }

    public int Total { get; private set; }
}
