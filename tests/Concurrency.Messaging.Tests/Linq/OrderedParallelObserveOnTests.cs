using System.Reactive.Linq;
using System.Reactive.Subjects;
using Concurrency.Messaging.Linq;
using Xunit;

namespace Concurrency.Messaging.Tests.Linq;

public sealed class OrderedParallelObserveOnTests
{
    [Fact]
    public async Task ObserveOnParallel_RandomSyncWork_ResultsInSourceOrder()
    {
        var observer = new RecordingObserver<int>();
        using var subscription = Observable.Range(0, 5_000)
            .ObserveOnParallel(i => { Thread.SpinWait(Spins(i)); return i * 2; }, 4)
            .Subscribe(observer);

        await observer.Terminated.DefaultTimeout();

        Assert.Equal(Enumerable.Range(0, 5_000).Select(i => i * 2), observer.Values);
        Assert.True(observer.Completed);
        Assert.Equal(0, observer.GrammarViolations);
    }

    [Fact]
    public async Task ObserveOnParallel_RandomAsyncDelays_ResultsInSourceOrder()
    {
        var observer = new RecordingObserver<int>();
        using var subscription = Observable.Range(0, 300)
            .ObserveOnParallel(async (int i, CancellationToken ct) => { await Task.Delay(i % 7, ct); return i; }, 8)
            .Subscribe(observer);

        await observer.Terminated.DefaultTimeout();

        Assert.Equal(Enumerable.Range(0, 300), observer.Values);
        Assert.Equal(0, observer.GrammarViolations);
    }

    [Fact]
    public async Task ObserveOnParallel_GatedAsyncWork_RunsExactlyNAtOnceAndNeverMore()
    {
        const int degree = 3;
        var running = 0;
        var peak = 0;
        var gates = Enumerable.Range(0, 20).Select(_ => new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously)).ToArray();
        var startedN = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var observer = new RecordingObserver<int>();
        using var subscription = Observable.Range(0, 20)
            .ObserveOnParallel(
                async (int i, CancellationToken _) =>
                {
                    var now = Interlocked.Increment(ref running);
                    InterlockedMax(ref peak, now);
                    if (now == degree)
                    {
                        startedN.TrySetResult();
                    }

                    await gates[i].Task;
                    Interlocked.Decrement(ref running);
                    return i;
                },
                degree)
            .Subscribe(observer);

        await startedN.Task.DefaultTimeout();
        Assert.Equal(degree, Volatile.Read(ref running));
        foreach (var gate in gates)
        {
            gate.SetResult();
        }

        await observer.Terminated.DefaultTimeout();
        Assert.Equal(degree, Volatile.Read(ref peak));
        Assert.Equal(Enumerable.Range(0, 20), observer.Values);
    }

    [Fact]
    public async Task ObserveOnParallel_SlowHead_HoldsBackNewWorkNotMemory()
    {
        var started = 0;
        var head = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var secondDone = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var observer = new RecordingObserver<int>();
        using var subject = new Subject<int>();
        using var subscription = subject
            .ObserveOnParallel(
                async (int i, CancellationToken _) =>
                {
                    Interlocked.Increment(ref started);
                    if (i == 0)
                    {
                        await head.Task;
                    }
                    else
                    {
                        secondDone.TrySetResult();
                    }

                    return i;
                },
                2)
            .Subscribe(observer);

        for (var i = 0; i < 100; i++)
        {
            subject.OnNext(i);
        }

        // Element 1 finishes, but its result must wait for element 0: the window (2) is full, so nothing else starts.
        await secondDone.Task.DefaultTimeout();
        Assert.Equal(2, Volatile.Read(ref started));
        Assert.Empty(observer.Values);

        head.SetResult();
        subject.OnCompleted();
        await observer.Terminated.DefaultTimeout();
        Assert.Equal(100, Volatile.Read(ref started));
        Assert.Equal(Enumerable.Range(0, 100), observer.Values);
    }

    [Fact]
    public async Task ObserveOnParallel_SelectorThrows_EarlierResultsThenOnErrorThenNothing()
    {
        var boom = new InvalidOperationException("selector failed");
        var observer = new RecordingObserver<int>();
        using var subscription = Observable.Range(0, 1_000)
            .ObserveOnParallel(i => i == 500 ? throw boom : i, 4)
            .Subscribe(observer);

        await observer.Terminated.DefaultTimeout();

        Assert.Equal(Enumerable.Range(0, 500), observer.Values);
        Assert.Same(boom, observer.Error);
        Assert.Equal(0, observer.GrammarViolations);
    }

    [Fact]
    public async Task ObserveOnParallel_SourceErrors_ResultsBeforeItThenOnError()
    {
        var boom = new InvalidOperationException("source failed");
        var observer = new RecordingObserver<int>();
        using var subscription = Observable.Range(0, 100).Concat(Observable.Throw<int>(boom))
            .ObserveOnParallel(i => { Thread.SpinWait(Spins(i)); return i; }, 4)
            .Subscribe(observer);

        await observer.Terminated.DefaultTimeout();

        Assert.Equal(Enumerable.Range(0, 100), observer.Values);
        Assert.Same(boom, observer.Error);
    }

    [Fact]
    public async Task ObserveOnParallel_EmptySource_Completes()
    {
        var observer = new RecordingObserver<int>();
        using var subscription = Observable.Empty<int>().ObserveOnParallel(i => i).Subscribe(observer);

        await observer.Terminated.DefaultTimeout();

        Assert.Empty(observer.Values);
        Assert.True(observer.Completed);
    }

    [Fact]
    public async Task Dispose_InFlightAsyncWork_TokenCancelledAndNothingMoreEmitted()
    {
        var cancelled = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var inFlight = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var observer = new RecordingObserver<int>();
        using var subject = new Subject<int>();
        var subscription = subject
            .ObserveOnParallel(
                async (int i, CancellationToken ct) =>
                {
                    using var registration = ct.Register(() => cancelled.TrySetResult());
                    inFlight.TrySetResult();
                    await Task.Delay(Timeout.Infinite, ct);
                    return i;
                },
                2)
            .Subscribe(observer);

        subject.OnNext(1);
        await inFlight.Task.DefaultTimeout();
        subscription.Dispose();

        await cancelled.Task.DefaultTimeout();
        Assert.False(subject.HasObservers);
        Assert.Empty(observer.Values);
        Assert.False(observer.Terminated.IsCompleted);
    }

    [Fact]
    public async Task ObserveOnParallel_LargeRun_EveryElementOnceInOrder()
    {
        var observer = new RecordingObserver<long>();
        using var subscription = Observable.Range(0, 100_000)
            .ObserveOnParallel(i => (long)i * i, 4)
            .Subscribe(observer);

        await observer.Terminated.DefaultTimeout();

        Assert.Equal(Enumerable.Range(0, 100_000).Select(i => (long)i * i), observer.Values);
    }

    [Fact]
    public void ObserveOnParallel_BadArguments_Throw()
    {
        var source = Observable.Range(0, 1);
        Assert.Throws<ArgumentNullException>(() => ((IObservable<int>)null!).ObserveOnParallel(i => i));
        Assert.Throws<ArgumentNullException>(() => source.ObserveOnParallel((Func<int, int>)null!));
        Assert.Throws<ArgumentNullException>(() => source.ObserveOnParallel((Func<int, CancellationToken, ValueTask<int>>)null!));
        Assert.Throws<ArgumentOutOfRangeException>(() => source.ObserveOnParallel(i => i, 0));
    }

    /// <summary>A deterministic pseudo-random amount of work per element, so later elements often finish first.</summary>
    private static int Spins(int i) => (int)((uint)(i * 2654435761) % 2000);

    private static void InterlockedMax(ref int target, int value)
    {
        var current = Volatile.Read(ref target);
        while (value > current)
        {
            var seen = Interlocked.CompareExchange(ref target, value, current);
            if (seen == current)
            {
                return;
            }

            current = seen;
        }
    }
}
