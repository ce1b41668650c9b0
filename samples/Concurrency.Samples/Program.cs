// The README's usage snippets are the regions named "README: ..." below, verbatim, in the README's order; pasted
// together they are this program without its connector, its logs and its final check. The regions named "package: ..."
// are the packages' own READMEs' snippets. Each prints its result, and the program exits 1 if any result is wrong.
#region README: usings
using System.Reactive.Linq;
using System.Reactive.Subjects;
using System.Reactive.Threading.Tasks;
using System.Text;
using Concurrency.Messaging.Actors;
using Concurrency.Messaging.Grpc;
using Concurrency.Messaging.Linq;
using Concurrency.Messaging.Pipes;
#endregion
using Concurrency.Messaging.Connectors;
using Concurrency.Messaging.Logs;
using Concurrency.Messaging.RocksDb;

#region README: rx
// Rx: ObserveOnRing() where ObserveOn(TaskPoolScheduler.Default) was; the rest of the query moves to the ring's consumer.
var prices = new Subject<double>();
var total = prices.ObserveOnRing().Sum().ToTask(); // subscribes now; completes after the consumer sees OnCompleted
prices.OnNext(101.5);
prices.OnNext(98.5);
prices.OnCompleted();
Console.WriteLine($"rx: total {await total}"); // wait for the consumer, or the program may end before it runs
#endregion

#region README: pipe
// A pipe: producers post, one consumer thread handles, Completion says when everything was handled.
long sum = 0;
await using (var pipe = Pipe.Create<long>(PipeKind.BatchDrainQueue, m => sum += m))
{
    for (long i = 0; i < 1_000_000; i++)
    {
        pipe.Post(i);
    }

    pipe.Complete();
    await pipe.Completion;
}

Console.WriteLine($"pipe: sum {sum}");
#endregion

#region README: grpc
// Two peers over gRPC on loopback: the server echoes; the client's one pump writes every caller's message.
await using var server = await PeerServer.StartAsync(new PeerServerOptions { Handler = PeerHandlers.Echo });
await using var client = await PeerClient.ConnectAsync(server.Address.ToString(), new PeerClientOptions { Mode = PeerMode.Async });
var reply = await client.SendAsync(new PeerMessage("greeting", "me", "hello"u8.ToArray()));
var replies = await Task.WhenAll(Enumerable.Range(1, 100).Select(i => client.SendAsync(new PeerMessage("number", "me", BitConverter.GetBytes(i)))));
await client.CompleteAsync(); // every reply in, then the stream closed in the safe order
var echoed = replies.Sum(r => BitConverter.ToInt32(r.Payload.Span));
Console.WriteLine($"grpc: {Encoding.UTF8.GetString(reply.Payload.Span)}, {replies.Length} replies summing to {echoed}");
#endregion

#region README: actor
// An actor: told from any thread, asked for its state; it handles one message at a time, so its state needs no lock.
await using var system = new ActorSystem();
var counter = system.Spawn(() => new Counter());
for (var i = 1; i <= 100; i++)
{
    counter.Tell(i);
}

var counted = await counter.Ask<long>(0, TimeSpan.FromSeconds(10)); // after the 100 tells: one sender's order is kept
Console.WriteLine($"actor: counted {counted}");
#endregion

// A connector: two components that know nothing of each other, wired by one injected connector.
using var orders = Connector.Create<int>();
var desk = new TradingDesk(orders.Input);
var book = new RiskBook(orders.Output.Where(quantity => quantity >= 100));
desk.Trade(50);
desk.Trade(150);
desk.Trade(300);
desk.Close();
Console.WriteLine($"connector: risk book saw {book.Large} large trades totalling {book.Total}");

#region package: file log
// An append-only file log: an entry is in the file once Append returns; reopening reads every entry back.
var logPath = Path.Combine(Path.GetTempPath(), $"sample-{Guid.NewGuid():N}.log");
using (var log = AppendLog.OpenFile(logPath))
{
    log.Append("first"u8);
    log.Append("second"u8);
}

using (var reopened = AppendLog.OpenFile(logPath))
{
    Console.WriteLine($"file log: {reopened.Count} entries, the last '{Encoding.UTF8.GetString(reopened.Get(reopened.Count - 1))}'");
}
#endregion

#region package: rocksdb
// The same contract kept in RocksDB: the path is a directory, and Fsync makes each append durable before it returns.
var storePath = Path.Combine(Path.GetTempPath(), $"sample-{Guid.NewGuid():N}");
using (var store = RocksDbAppendLog.Open(storePath, FileFlushPolicy.Fsync))
{
    store.Append("hello"u8);
    Console.WriteLine($"rocksdb log: {store.Count} entry, '{Encoding.UTF8.GetString(store.Get(0))}'");
}
#endregion

var wrong = new List<string>();
if (await total != 200)
{
    wrong.Add("rx");
}

if (sum != 499_999_500_000)
{
    wrong.Add("pipe");
}

if (echoed != 5050 || Encoding.UTF8.GetString(reply.Payload.Span) != "hello")
{
    wrong.Add("grpc");
}

if (counted != 5050)
{
    wrong.Add("actor");
}

if (book.Large != 2 || book.Total != 450)
{
    wrong.Add("connector");
}

using (var log = AppendLog.OpenFile(logPath))
using (var store = RocksDbAppendLog.Open(storePath))
{
    if (log.Count != 2 || store.Count != 1)
    {
        wrong.Add("logs");
    }
}

File.Delete(logPath);
Directory.Delete(storePath, recursive: true);
Console.WriteLine(wrong.Count == 0 ? "all results as expected" : $"wrong results: {string.Join(", ", wrong)}");
return wrong.Count == 0 ? 0 : 1;

#region README: actor class
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
#endregion

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
