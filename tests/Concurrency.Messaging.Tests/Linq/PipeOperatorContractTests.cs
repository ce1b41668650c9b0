using System.Reactive.Concurrency;
using System.Reactive.Linq;
using System.Reactive.Subjects;

namespace Concurrency.Messaging.Tests.Linq;

/// <summary>
/// The Rx grammar every drop-in ObserveOn replacement keeps: OnNext serialized and in order, the terminal call after the
/// last OnNext, errors delivered, dispose stopping delivery. Each operator runs it through a one-line subclass.
/// </summary>
public abstract class PipeOperatorContractTests
{
    protected abstract IObservable<T> Apply<T>(IObservable<T> source);

    /// <summary>Whether the operator's consumer is a dedicated thread (which dispose must let exit).</summary>
    protected virtual bool UsesDedicatedThread => true;

    [Fact]
    public async Task Subscribe_SourceCompletes_EveryOnNextInOrderThenOnCompletedOnAnotherThread()
    {
        var observer = new RecordingObserver<int>();
        using var subject = new Subject<int>();
        using var subscription = Apply(subject).Subscribe(observer);

        for (var i = 0; i < 50_000; i++)
        {
            subject.OnNext(i);
        }

        subject.OnCompleted();
        await observer.Terminated.DefaultTimeout();

        Assert.Equal(Enumerable.Range(0, 50_000), observer.Values);
        Assert.True(observer.Completed);
        Assert.Equal(0, observer.GrammarViolations);
        if (UsesDedicatedThread)
        {
            Assert.NotEqual(Environment.CurrentManagedThreadId, observer.LastThreadId);
        }
    }

    [Fact]
    public async Task Subscribe_VirtualTimeSource_DeliversExactlyTheScheduledSequence()
    {
        var time = new HistoricalScheduler();
        var observer = new RecordingObserver<long>();
        using var subscription = Apply(Observable.Interval(TimeSpan.FromSeconds(1), time).Take(100)).Subscribe(observer);

        time.AdvanceBy(TimeSpan.FromSeconds(50));
        time.AdvanceBy(TimeSpan.FromSeconds(60));
        await observer.Terminated.DefaultTimeout();

        Assert.Equal(Enumerable.Range(0, 100).Select(i => (long)i), observer.Values);
        Assert.True(observer.Completed);
    }

    [Fact]
    public async Task Subscribe_SourceErrors_QueuedOnNextsThenOnError()
    {
        var observer = new RecordingObserver<int>();
        var boom = new InvalidOperationException("source failed");
        using var subject = new Subject<int>();
        using var subscription = Apply(subject).Subscribe(observer);

        for (var i = 0; i < 1_000; i++)
        {
            subject.OnNext(i);
        }

        subject.OnError(boom);

        await observer.AssertFailedAfterAsync(Enumerable.Range(0, 1_000), boom);
    }

    [Fact]
    public async Task Subscribe_ConcurrentSynchronizedProducers_OnNextNeverOverlaps()
    {
        var observer = new RecordingObserver<int>();
        using var subject = new Subject<int>();
        using var subscription = Apply(subject.Synchronize()).Subscribe(observer);

        await Task.WhenAll(Enumerable.Range(0, 4).Select(p => Task.Run(() =>
        {
            for (var i = 0; i < 10_000; i++)
            {
                subject.OnNext((p * 10_000) + i);
            }
        }))).DefaultTimeout();
        subject.OnCompleted();
        await observer.Terminated.DefaultTimeout();

        Assert.Equal(40_000, observer.Values.Count);
        Assert.Equal(Enumerable.Range(0, 40_000), observer.Values.Order());
        Assert.Equal(0, observer.GrammarViolations);
    }

    [Fact]
    public async Task Dispose_WhileDelivering_StopsDeliveryAndFreesConsumer()
    {
        using var inHandler = new ManualResetEventSlim(false);
        using var release = new ManualResetEventSlim(false);
        Thread? consumer = null;
        var delivered = 0;
        var terminated = 0;
        using var subject = new Subject<int>();
        var observable = Apply(subject);
        var delivery = WatchDelivery(observable);
        var subscription = observable.Subscribe(
            _ =>
            {
                consumer = Thread.CurrentThread;
                Interlocked.Increment(ref delivered);
                inHandler.Set();
                Assert.True(release.Wait(TestTimeouts.Default));
            },
            _ => Interlocked.Increment(ref terminated),
            () => Interlocked.Increment(ref terminated));

        for (var i = 0; i < 100; i++)
        {
            subject.OnNext(i);
        }

        Assert.True(inHandler.Wait(TestTimeouts.Default, TestContext.Current.CancellationToken));
        subscription.Dispose();
        Assert.False(subject.HasObservers);
        release.Set();
        subject.OnNext(100);
        subject.OnCompleted();

        // Until the consumer has exited and the completion has been handled, another message or a terminal call could
        // still come: wait for that before checking that none did.
        await delivery().DefaultTimeout();
        if (UsesDedicatedThread)
        {
            Assert.True(consumer!.Join(TestTimeouts.Default));
        }

        Assert.Equal(1, Volatile.Read(ref delivered));
        Assert.Equal(0, Volatile.Read(ref terminated));
    }

    [Fact]
    public Task Subscribe_ObserverOnNextThrows_ThatErrorDeliveredAndSourceUnsubscribed()
        => AssertObserverThrowEndsTheSubscriptionAsync(source => Apply(source));

    [Fact]
    public async Task Subscribe_SourceSubscribeThrows_ExceptionReachesCallerAndConsumerExits()
    {
        var boom = new InvalidOperationException("subscribe failed");
        var observer = new RecordingObserver<int>();
        var observable = Apply<int>(new ThrowOnSubscribe(boom));
        var delivery = WatchDelivery(observable);

        var thrown = Assert.Throws<InvalidOperationException>(() => observable.Subscribe(observer));

        Assert.Same(boom, thrown);
        await delivery().DefaultTimeout(); // the pipe the subscription started is closed and its consumer has exited
        Assert.False(observer.Terminated.IsCompleted);
        Assert.Empty(observer.Values);
    }

    [Fact]
    public void Operator_NullSource_Throws()
        => Assert.Throws<ArgumentNullException>(() => Apply<int>(null!));

    [Fact]
    public async Task Subscribe_SourceFasterThanConsumer_NothingLostUnderBackPressure()
    {
        var observer = new RecordingObserver<int>(spinPerMessage: 200);
        var source = Observable.Range(0, 20_000, ImmediateScheduler.Instance);
        using var subscription = Apply(source).Subscribe(observer);

        await observer.Terminated.DefaultTimeout();

        Assert.Equal(Enumerable.Range(0, 20_000), observer.Values);
    }

    /// <summary>
    /// The operator <paramref name="apply"/> makes, whose observer throws on the fourth value of ten: that error is the
    /// observer's OnError after the values before it, and the operator leaves the source. Shared with the operators that
    /// are not pipes (<see cref="OrderedParallelObserveOnTests"/>), which keep the same rule.
    /// </summary>
    internal static async Task AssertObserverThrowEndsTheSubscriptionAsync(Func<IObservable<int>, IObservable<int>> apply)
    {
        var boom = new InvalidOperationException("observer failed");
        var observer = new RecordingObserver<int>(throwOn: 3, boom);
        using var subject = new Subject<int>();
        using var subscription = apply(subject).Subscribe(observer);

        for (var i = 0; i < 10; i++)
        {
            subject.OnNext(i);
        }

        await observer.Terminated.DefaultTimeout();

        Assert.Equal([0, 1, 2, 3], observer.Values);
        Assert.Same(boom, observer.Error);
        Assert.False(subject.HasObservers);
    }

    /// <summary>
    /// Hooks the operator so that the returned function gives the delivery task of its last subscription: it finishes once
    /// that subscription's consumer has exited and the terminal call, if any, has returned.
    /// </summary>
    private static Func<Task> WatchDelivery<T>(IObservable<T> observable)
    {
        Task? delivery = null;
        ((ObserveOnPipeObservable<T>)observable).DeliveryStarted = task => delivery = task;
        return () => delivery ?? throw new InvalidOperationException("Nothing subscribed.");
    }

    private sealed class ThrowOnSubscribe(Exception error) : IObservable<int>
    {
        public IDisposable Subscribe(IObserver<int> observer) => throw error;
    }
}
