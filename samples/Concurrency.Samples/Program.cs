using System.Reactive.Linq;
using Concurrency.Messaging.Connectors;
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

return sum == expected && received == count && book.Total == 450 ? 0 : 1;

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
