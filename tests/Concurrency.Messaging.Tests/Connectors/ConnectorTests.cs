using System.Reactive;
using System.Reactive.Linq;
using Concurrency.Messaging.Tests.Linq;

namespace Concurrency.Messaging.Tests.Connectors;

public sealed class ConnectorTests
{
    [Fact]
    public void OneToOne_ComponentsWiredOnlyByConnector_ConsumerGetsEveryOrder()
    {
        using var connector = Connector.Create<Order>();
        var shop = new Shop(connector.Input);
        var ledger = new Ledger(connector.Output);

        shop.Sell("apple", 3);
        shop.Sell("pear", 2);
        shop.Close();

        Assert.Equal(["apple", "pear"], ledger.Items);
        Assert.Equal(5, ledger.Total);
        Assert.True(ledger.Closed);
    }

    [Fact]
    public void OneToMany_ThreeSubscribers_EachGetsEveryMessageAndCompletion()
    {
        using var connector = Connector.Create<int>();
        var observers = Enumerable.Range(0, 3).Select(_ => new RecordingObserver<int>()).ToArray();
        foreach (var observer in observers)
        {
            connector.Output.Subscribe(observer);
        }

        for (var i = 0; i < 100; i++)
        {
            connector.Input.OnNext(i);
        }

        connector.Input.OnCompleted();

        Assert.All(observers, o =>
        {
            Assert.Equal(Enumerable.Range(0, 100), o.Values);
            Assert.True(o.Completed);
        });
        Assert.Equal(0, connector.SubscriberCount);
    }

    [Fact]
    public void Filtering_WhereOnOutput_ConsumerSeesOnlyMatches()
    {
        using var connector = Connector.Create<Order>();
        var big = new List<Order>();
        using var subscription = connector.Output.Where(o => o.Quantity >= 10).Subscribe(big.Add);

        connector.Input.OnNext(new Order("a", 1));
        connector.Input.OnNext(new Order("b", 10));
        connector.Input.OnNext(new Order("c", 25));

        Assert.Equal(["b", "c"], big.Select(o => o.Item));
    }

    [Fact]
    public void Join_TwoConnectors_ZipCombineLatestAndJoinPairThem()
    {
        using var bids = Connector.Create<int>();
        using var asks = Connector.Create<int>();
        var zipped = new List<(int Bid, int Ask)>();
        var latest = new List<int>();
        var joined = new List<(int Bid, int Ask)>();
        using var zip = bids.Output.Zip(asks.Output).Subscribe(zipped.Add);
        using var combine = bids.Output.CombineLatest(asks.Output, (b, a) => a - b).Subscribe(latest.Add);
        using var join = bids.Output
            .Join(asks.Output, _ => Observable.Never<int>(), _ => Observable.Never<int>(), (b, a) => (b, a))
            .Where(p => p.a - p.b == 1)
            .Subscribe(joined.Add);

        bids.Input.OnNext(100);
        asks.Input.OnNext(101);
        bids.Input.OnNext(102);
        asks.Input.OnNext(103);

        Assert.Equal([(100, 101), (102, 103)], zipped);
        Assert.Equal([1, -1, 1], latest);
        Assert.Equal([(100, 101), (102, 103)], joined);
    }

    [Fact]
    public async Task OnNext_ConcurrentProducers_SerializedAndEveryMessageOnce()
    {
        const int producers = 4, perProducer = 50_000;
        using var connector = Connector.Create<long>();
        var observer = new RecordingObserver<long>();
        connector.Output.Subscribe(observer);

        await Task.WhenAll(Enumerable.Range(0, producers).Select(p => Task.Run(() =>
        {
            for (var i = 0; i < perProducer; i++)
            {
                connector.Input.OnNext(((long)p * perProducer) + i);
            }
        }))).DefaultTimeout();
        connector.Input.OnCompleted();

        Assert.Equal(0, observer.GrammarViolations);
        Assert.Equal(Enumerable.Range(0, producers * perProducer).Select(i => (long)i), observer.Values.Order());
        Assert.Equal((long)producers * perProducer * ((producers * perProducer) - 1) / 2, observer.Values.Sum());
    }

    [Fact]
    public void OnError_EarlyAndLateSubscribers_AllGetReplayThenTheError()
    {
        var boom = new InvalidOperationException("producer failed");
        using var connector = Connector.Create<int>(new ConnectorOptions { Replay = ConnectorReplay.Latest });
        var early = new[] { new RecordingObserver<int>(), new RecordingObserver<int>() };
        foreach (var observer in early)
        {
            connector.Output.Subscribe(observer);
        }

        connector.Input.OnNext(7);
        connector.Input.OnError(boom);
        var late = new RecordingObserver<int>();
        connector.Output.Subscribe(late);

        Assert.All(early, o =>
        {
            Assert.Equal([7], o.Values);
            Assert.Same(boom, o.Error);
        });
        Assert.Equal([7], late.Values);
        Assert.Same(boom, late.Error);
        Assert.Equal(0, connector.SubscriberCount);
    }

    [Theory]
    [InlineData(ConnectorReplay.None, 5, new int[0])]
    [InlineData(ConnectorReplay.Latest, 5, new[] { 9 })]
    [InlineData(ConnectorReplay.LastN, 3, new[] { 7, 8, 9 })]
    public void Subscribe_Late_SeesWhatTheReplayModePromisesThenLiveMessages(ConnectorReplay replay, int count, int[] replayed)
    {
        using var connector = Connector.Create<int>(new ConnectorOptions { Replay = replay, ReplayCount = count });
        for (var i = 0; i < 10; i++)
        {
            connector.Input.OnNext(i);
        }

        var late = new RecordingObserver<int>();
        connector.Output.Subscribe(late);
        connector.Input.OnNext(10);

        Assert.Equal([.. replayed, 10], late.Values);
    }

    [Fact]
    public void Subscribe_AfterCompletion_ReplayThenOnCompleted()
    {
        using var connector = Connector.Create<int>(new ConnectorOptions { Replay = ConnectorReplay.LastN, ReplayCount = 2 });
        connector.Input.OnNext(1);
        connector.Input.OnNext(2);
        connector.Input.OnNext(3);
        connector.Input.OnCompleted();

        var late = new RecordingObserver<int>();
        connector.Output.Subscribe(late);

        Assert.Equal([2, 3], late.Values);
        Assert.True(late.Completed);
    }

    [Fact]
    public void OnNext_SubscriberThrows_ItIsUnsubscribedReportedAndOthersKeepReceiving()
    {
        var faults = new List<Exception>();
        var boom = new InvalidOperationException("subscriber failed");
        using var connector = Connector.Create<int>(new ConnectorOptions { SubscriberFaulted = faults.Add });
        var faulty = new RecordingObserver<int>(throwOn: 1, boom);
        var healthy = new RecordingObserver<int>();
        connector.Output.Subscribe(faulty);
        connector.Output.Subscribe(healthy);

        for (var i = 0; i < 5; i++)
        {
            connector.Input.OnNext(i);
        }

        Assert.Equal([0, 1], faulty.Values);
        Assert.Equal([0, 1, 2, 3, 4], healthy.Values);
        Assert.Equal([boom], faults);
        Assert.Equal(1, connector.SubscriberCount);
    }

    [Fact]
    public void OnCompleted_SubscriberThrows_OthersStillCompleteAndFaultReported()
    {
        var faults = new List<Exception>();
        var boom = new InvalidOperationException("subscriber failed");
        using var connector = Connector.Create<int>(new ConnectorOptions { SubscriberFaulted = faults.Add });
        var before = new RecordingObserver<int>();
        var after = new RecordingObserver<int>();
        connector.Output.Subscribe(before);
        connector.Output.Subscribe(Observer.Create<int>(_ => { }, () => throw boom));
        connector.Output.Subscribe(after);

        connector.Input.OnCompleted();

        Assert.True(before.Completed);
        Assert.True(after.Completed);
        Assert.Equal([boom], faults);
    }

    [Fact]
    public void OnNext_FaultCallbackThrows_OtherSubscribersStillGetTheMessage()
    {
        var callbackFailure = new InvalidOperationException("callback failed");
        using var connector = Connector.Create<int>(new ConnectorOptions { SubscriberFaulted = _ => throw callbackFailure });
        var healthy = new RecordingObserver<int>();
        connector.Output.Subscribe(new RecordingObserver<int>(throwOn: 0, new InvalidOperationException("subscriber failed")));
        connector.Output.Subscribe(healthy);

        var thrown = Assert.Throws<InvalidOperationException>(() => connector.Input.OnNext(1));
        connector.Input.OnNext(2);

        Assert.Same(callbackFailure, thrown);
        Assert.Equal([1, 2], healthy.Values);
        Assert.Equal(1, connector.SubscriberCount);
    }

    [Fact]
    public void Subscribe_SubscriberThrowsDuringReplay_FaultReportedNotSubscribedCallerUnharmed()
    {
        var faults = new List<Exception>();
        var boom = new InvalidOperationException("subscriber failed");
        using var connector = Connector.Create<int>(new ConnectorOptions
        {
            Replay = ConnectorReplay.LastN,
            ReplayCount = 3,
            SubscriberFaulted = faults.Add,
        });
        connector.Input.OnNext(1);
        connector.Input.OnNext(2);

        var faulty = new RecordingObserver<int>(throwOn: 0, boom);
        using var subscription = connector.Output.Subscribe(faulty);
        connector.Input.OnNext(3);

        Assert.Equal([1], faulty.Values);
        Assert.Equal([boom], faults);
        Assert.Equal(0, connector.SubscriberCount);
    }

    [Fact]
    public void Input_AfterTermination_Ignored()
    {
        using var connector = Connector.Create<int>();
        var observer = new RecordingObserver<int>();
        connector.Output.Subscribe(observer);

        connector.Input.OnCompleted();
        connector.Input.OnNext(1);
        connector.Input.OnError(new InvalidOperationException());
        connector.Input.OnCompleted();

        Assert.Empty(observer.Values);
        Assert.True(observer.Completed);
        Assert.Null(observer.Error);
        Assert.Equal(0, observer.GrammarViolations);
    }

    [Fact]
    public void Dispose_SubscriptionThenConnector_DeliveryStopsAndSubscribeThrows()
    {
        var connector = Connector.Create<int>();
        var observer = new RecordingObserver<int>();
        var subscription = connector.Output.Subscribe(observer);
        connector.Input.OnNext(1);
        subscription.Dispose();
        subscription.Dispose();
        connector.Input.OnNext(2);

        connector.Dispose();
        connector.Input.OnNext(3);

        Assert.Equal([1], observer.Values);
        Assert.Throws<ObjectDisposedException>(() => connector.Output.Subscribe(new RecordingObserver<int>()));
    }

    [Fact]
    public async Task Dispose_SubscriberInOnNextWaitsForTheDisposingThread_DisposeReturnsAndNothingMoreArrives()
    {
        var testToken = TestContext.Current.CancellationToken;
        var connector = Connector.Create<int>(new ConnectorOptions { Replay = ConnectorReplay.Latest });
        var received = new List<int>();
        Task? disposer = null;
        var disposeReturned = false;
        using var disposed = new ManualResetEventSlim(false);
        var waiting = Observer.Create<int>(value =>
        {
            received.Add(value);
            disposer = Task.Run(() =>
            {
                connector.Dispose();
                disposed.Set();
            }, testToken);
            disposeReturned = disposed.Wait(TestTimeouts.Default);
        });
        var next = new RecordingObserver<int>(); // after the waiting subscriber in delivery order
        connector.Output.Subscribe(waiting);
        connector.Output.Subscribe(next);

        await Task.Run(() => connector.Input.OnNext(1), testToken).DefaultTimeout();
        await disposer!.DefaultTimeout();
        connector.Input.OnNext(2);
        connector.Input.OnCompleted();

        Assert.True(disposeReturned, "Dispose waited for the delivery in progress, which waited for Dispose");
        Assert.Equal([1], received);
        Assert.Empty(next.Values); // the delivery in progress stopped at the dispose
        Assert.False(next.Terminated.IsCompleted);
        Assert.Equal(0, connector.SubscriberCount);
        Assert.Throws<ObjectDisposedException>(() => connector.Output.Subscribe(new RecordingObserver<int>()));
    }

    [Fact]
    public void Dispose_FromInsideAReplay_ReplayStopsAndNoFaultReported()
    {
        var faults = new List<Exception>();
        var connector = Connector.Create<int>(new ConnectorOptions { Replay = ConnectorReplay.LastN, ReplayCount = 3, SubscriberFaulted = faults.Add });
        connector.Input.OnNext(1);
        connector.Input.OnNext(2);
        connector.Input.OnNext(3);
        var received = new List<int>();

        var subscription = connector.Output.Subscribe(value =>
        {
            received.Add(value);
            connector.Dispose();
        });
        subscription.Dispose();
        connector.Input.OnNext(4);

        Assert.Equal([1], received);
        Assert.Empty(faults);
        Assert.Equal(0, connector.SubscriberCount);
        Assert.Throws<ObjectDisposedException>(() => connector.Output.Subscribe(new RecordingObserver<int>()));
    }

    [Fact]
    public void Create_BadArguments_Throw()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => Connector.Create<int>(new ConnectorOptions { Replay = ConnectorReplay.LastN, ReplayCount = 0 }));
        Assert.Throws<ArgumentOutOfRangeException>(() => Connector.Create<int>(new ConnectorOptions { Replay = ConnectorReplay.LastN, ReplayCount = -1 }));
        Assert.Throws<ArgumentOutOfRangeException>(() => Connector.Create<int>(new ConnectorOptions { Replay = (ConnectorReplay)9 }));
        using var connector = Connector.Create<int>();
        Assert.Throws<ArgumentNullException>(() => connector.Output.Subscribe((IObserver<int>)null!));
        Assert.Throws<ArgumentNullException>(() => connector.Input.OnError(null!));
    }

    internal sealed record Order(string Item, int Quantity);

    /// <summary>A producer component: knows only an observer.</summary>
    private sealed class Shop(IObserver<Order> sales)
    {
        public void Sell(string item, int quantity) => sales.OnNext(new Order(item, quantity));

        public void Close() => sales.OnCompleted();
    }

    /// <summary>A consumer component: knows only an observable.</summary>
    private sealed class Ledger
    {
        public Ledger(IObservable<Order> sales) => sales.Subscribe(o => { Items.Add(o.Item); Total += o.Quantity; }, () => Closed = true);

        public List<string> Items { get; } = [];

        public int Total { get; private set; }

        public bool Closed { get; private set; }
    }
}
