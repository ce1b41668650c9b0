using System.Reactive.Linq;
using System.Reactive.Subjects;

namespace Concurrency.Messaging.Tests.Linq;

public sealed class OrderedParallelObserveOnTests
{
    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(4)]
    [InlineData(16)]
    public async Task ObserveOnParallel_RandomSpinWork_ResultsInSourceOrder(int degree)
    {
        const int count = 5_000;
        var spins = RandomArray(seed: degree, count, maxExclusive: 2_000);
        var observer = new RecordingObserver<int>();
        using var subscription = Observable.Range(0, count)
            .ObserveOnParallel(i => { Thread.SpinWait(spins[i]); return i * 2; }, degree)
            .Subscribe(observer);

        await observer.Terminated.DefaultTimeout();

        Assert.Equal(Enumerable.Range(0, count).Select(i => i * 2), observer.Values);
        Assert.True(observer.Completed);
        Assert.Equal(0, observer.GrammarViolations);
    }

    [Fact]
    public async Task ObserveOnParallel_RandomAsyncDelays_ResultsInSourceOrder()
    {
        const int count = 400;
        var kinds = RandomArray(seed: 42, count, maxExclusive: 4); // 0: completes synchronously, 1: yields, 2-3: 1-2 ms
        var observer = new RecordingObserver<int>();
        using var subscription = Observable.Range(0, count)
            .ObserveOnParallel(
                async (int i, CancellationToken ct) =>
                {
                    if (kinds[i] == 1)
                    {
                        await Task.Yield();
                    }
                    else if (kinds[i] > 1)
                    {
                        await Task.Delay(kinds[i] - 1, ct);
                    }

                    return i;
                },
                8)
            .Subscribe(observer);

        await observer.Terminated.DefaultTimeout();

        Assert.Equal(Enumerable.Range(0, count), observer.Values);
        Assert.True(observer.Completed);
        Assert.Equal(0, observer.GrammarViolations);
    }

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    [InlineData(null)]
    public async Task ObserveOnParallel_SpinWork_NeverMoreThanNSelectorsAtOnce(int? degree)
    {
        var probe = new ConcurrencyProbe();
        var observer = new RecordingObserver<int>();
        using var subscription = Observable.Range(0, 2_000)
            .ObserveOnParallel(i => { probe.Enter(); Thread.SpinWait(300); probe.Exit(); return i; }, degree)
            .Subscribe(observer);

        await observer.Terminated.DefaultTimeout();

        Assert.InRange(probe.Peak, 1, degree ?? Environment.ProcessorCount);
        Assert.Equal(Enumerable.Range(0, 2_000), observer.Values);
    }

    [Fact]
    public async Task ObserveOnParallel_GatedAsyncWork_ExactlyNRunAtOnce()
    {
        const int degree = 3;
        var probe = new ConcurrencyProbe();
        var release = NewSignal();
        var nRunning = NewSignal();
        var observer = new RecordingObserver<int>();
        using var subscription = Observable.Range(0, 20)
            .ObserveOnParallel(
                async (int i, CancellationToken ct) =>
                {
                    if (probe.Enter() == degree)
                    {
                        nRunning.TrySetResult();
                    }

                    await release.Task.WaitAsync(ct);
                    probe.Exit();
                    return i;
                },
                degree)
            .Subscribe(observer);

        // No selector can finish before the release, so N of them provably run at the same time.
        await nRunning.Task.DefaultTimeout();
        Assert.Equal(degree, probe.Running);
        release.SetResult();

        await observer.Terminated.DefaultTimeout();
        Assert.Equal(degree, probe.Peak);
        Assert.Equal(Enumerable.Range(0, 20), observer.Values);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task ObserveOnParallel_HeadGated_NoMoreThanNStartUntilItIsEmitted(bool asynchronous)
    {
        const int degree = 2;
        var started = 0;
        var bothStarted = NewSignal();
        var release = NewSignal();
        var observer = new RecordingObserver<int>();
        using var subject = new Subject<int>();
        var parallel = asynchronous
            ? subject.ObserveOnParallel(
                async (int i, CancellationToken ct) =>
                {
                    CountStart(ref started, degree, bothStarted);
                    if (i == 0)
                    {
                        await release.Task.WaitAsync(ct);
                    }

                    return i;
                },
                degree)
            : subject.ObserveOnParallel(
                i =>
                {
                    CountStart(ref started, degree, bothStarted);
                    if (i == 0)
                    {
                        SpinWait.SpinUntil(() => release.Task.IsCompleted, TestTimeouts.Default);
                    }

                    return i;
                },
                degree);
        using var subscription = (OrderedParallelSink<int, int>)parallel.Subscribe(observer);

        for (var i = 0; i < 100; i++)
        {
            subject.OnNext(i);
        }

        // Elements 0 and 1 both start (in either order); 1 finishes and its result is stored, but waits for 0. The sink
        // hands out the next element in the same step that stores a result, so once the result is stored, a third start
        // would already show in its count: the window of 2 is full, so nothing else may have started.
        await bothStarted.Task.DefaultTimeout();
        Assert.True(
            SpinWait.SpinUntil(() => subscription.Progress.Stored > 0, TestTimeouts.Default),
            "no result was ever stored");
        Assert.Equal((Started: 2L, Emitted: 0L, Stored: 1), subscription.Progress);
        Assert.Equal(degree, Volatile.Read(ref started));
        Assert.Empty(observer.Values);

        release.SetResult();
        subject.OnCompleted();
        await observer.Terminated.DefaultTimeout();
        Assert.Equal(100, Volatile.Read(ref started));
        Assert.Equal(Enumerable.Range(0, 100), observer.Values);
        Assert.Equal(0, observer.GrammarViolations);
    }

    [Fact]
    public async Task ObserveOnParallel_SelectorThrows_EarlierResultsThenOnErrorThenNothing()
    {
        var boom = new InvalidOperationException("selector failed");
        var observer = new RecordingObserver<int>();
        using var subscription = Observable.Range(0, 1_000)
            .ObserveOnParallel(i => i == 500 ? throw boom : i, 4)
            .Subscribe(observer);

        await observer.AssertFailedAfterAsync(Enumerable.Range(0, 500), boom);
    }

    [Fact]
    public async Task ObserveOnParallel_LaterSelectorFailsFirst_EarlierResultsThenOnErrorAndLaterWorkCancelled()
    {
        var boom = new InvalidOperationException("selector failed");
        var release = NewSignal();
        var thirdStarted = NewSignal();
        var thirdCancelled = NewSignal();
        var observer = new RecordingObserver<int>();
        using var subject = new Subject<int>();
        using var subscription = subject
            .ObserveOnParallel(
                async (int i, CancellationToken ct) =>
                {
                    switch (i)
                    {
                        case < 2:
                            await release.Task.WaitAsync(ct);
                            return i;
                        case 2:
                            throw boom; // fails at once, while elements 0 and 1 still wait
                        case 3:
                            using (ct.Register(() => thirdCancelled.TrySetResult()))
                            {
                                thirdStarted.TrySetResult();
                                await Task.Delay(Timeout.Infinite, ct);
                                return i;
                            }

                        default:
                            await Task.Delay(Timeout.Infinite, ct);
                            return i;
                    }
                },
                4)
            .Subscribe(observer);

        for (var i = 0; i < 10; i++)
        {
            subject.OnNext(i);
        }

        await thirdStarted.Task.DefaultTimeout();
        Assert.False(observer.Terminated.IsCompleted); // the failure waits for the elements before it
        release.SetResult();

        await observer.Terminated.DefaultTimeout();
        await thirdCancelled.Task.DefaultTimeout();
        Assert.Equal([0, 1], observer.Values);
        Assert.Same(boom, observer.Error);
        Assert.False(subject.HasObservers);
        Assert.Equal(0, observer.GrammarViolations);
    }

    [Fact]
    public async Task ObserveOnParallel_SourceErrors_ResultsBeforeItThenOnError()
    {
        var boom = new InvalidOperationException("source failed");
        var observer = new RecordingObserver<int>();
        using var subscription = Observable.Range(0, 100).Concat(Observable.Throw<int>(boom))
            .ObserveOnParallel(i => { Thread.SpinWait((i * 37) % 2_000); return i; }, 4)
            .Subscribe(observer);

        await observer.AssertFailedAfterAsync(Enumerable.Range(0, 100), boom);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task ObserveOnParallel_SourceEndsWhileWorkRuns_TerminalCallAfterLastResult(bool fails)
    {
        var boom = new InvalidOperationException("source failed");
        var release = NewSignal();
        var observer = new RecordingObserver<int>();
        using var subject = new Subject<int>();
        using var subscription = subject
            .ObserveOnParallel(async (int i, CancellationToken ct) => { await release.Task.WaitAsync(ct); return i; }, 2)
            .Subscribe(observer);

        for (var i = 0; i < 5; i++)
        {
            subject.OnNext(i); // 0 and 1 run, 2 to 4 wait in the queue
        }

        if (fails)
        {
            subject.OnError(boom);
        }
        else
        {
            subject.OnCompleted();
        }

        Assert.False(observer.Terminated.IsCompleted);
        release.SetResult();

        await observer.Terminated.DefaultTimeout();
        Assert.Equal(Enumerable.Range(0, 5), observer.Values);
        Assert.Equal(!fails, observer.Completed);
        Assert.Equal(fails ? boom : null, observer.Error);
        Assert.Equal(0, observer.GrammarViolations);
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
        var started = 0;
        var bothRunning = NewSignal();
        var secondCancelled = NewSignal();
        var first = new HeldResult<int>(); // ignores the token: finishes after the dispose, when the test says
        var observer = new RecordingObserver<int>();
        using var subject = new Subject<int>();
        var subscription = subject
            .ObserveOnParallel(
                (int i, CancellationToken ct) =>
                {
                    CountStart(ref started, 2, bothRunning);
                    return i == 0 ? first.AsValueTask() : WaitForCancellationAsync(i, secondCancelled, ct);
                },
                2)
            .Subscribe(observer);

        subject.OnNext(0);
        subject.OnNext(1);
        subject.OnNext(2); // waits: the window is full
        await bothRunning.Task.DefaultTimeout();
        await first.Awaited.DefaultTimeout();

        subscription.Dispose();
        await secondCancelled.Task.DefaultTimeout();

        // Element 0 is the head: had the dispose not stopped emission, this call would emit it before it returns.
        first.SetResult(0);

        Assert.False(subject.HasObservers);
        Assert.Equal(2, Volatile.Read(ref started));
        Assert.Empty(observer.Values);
        Assert.False(observer.Terminated.IsCompleted);
    }

    [Fact]
    public Task ObserveOnParallel_ObserverOnNextThrows_ThatErrorDeliveredAndSourceUnsubscribed()
        => PipeOperatorContractTests.AssertObserverThrowEndsTheSubscriptionAsync(source => source.ObserveOnParallel(i => i, 2));

    [Fact]
    public async Task ObserveOnParallel_LargeRun_EveryElementOnceInOrder()
    {
        var observer = new RecordingObserver<long>();
        using var subscription = Observable.Range(0, 100_000)
            .ObserveOnParallel(i => (long)i * i, 4)
            .Subscribe(observer);

        await observer.Terminated.DefaultTimeout();

        Assert.Equal(Enumerable.Range(0, 100_000).Select(i => (long)i * i), observer.Values);
        Assert.True(observer.Completed);
        Assert.Equal(0, observer.GrammarViolations);
    }

    [Fact]
    public void ObserveOnParallel_BadArguments_Throw()
    {
        var source = Observable.Range(0, 1);
        Func<int, CancellationToken, ValueTask<int>> asyncSelector = (i, _) => ValueTask.FromResult(i);
        Assert.Throws<ArgumentNullException>("source", () => ((IObservable<int>)null!).ObserveOnParallel(i => i));
        Assert.Throws<ArgumentNullException>("source", () => ((IObservable<int>)null!).ObserveOnParallel(asyncSelector));
        Assert.Throws<ArgumentNullException>("selector", () => source.ObserveOnParallel((Func<int, int>)null!));
        Assert.Throws<ArgumentNullException>("selector", () => source.ObserveOnParallel((Func<int, CancellationToken, ValueTask<int>>)null!));
        Assert.Throws<ArgumentOutOfRangeException>("maxDegreeOfParallelism", () => source.ObserveOnParallel(i => i, 0));
        Assert.Throws<ArgumentOutOfRangeException>("maxDegreeOfParallelism", () => source.ObserveOnParallel(i => i, -1));
        Assert.Throws<ArgumentOutOfRangeException>("maxDegreeOfParallelism", () => source.ObserveOnParallel(asyncSelector, 0));
        Assert.Throws<ArgumentNullException>("observer", () => source.ObserveOnParallel(i => i).Subscribe(null!));
    }

    private static TaskCompletionSource NewSignal() => new(TaskCreationOptions.RunContinuationsAsynchronously);

    private static int[] RandomArray(int seed, int count, int maxExclusive)
    {
        var random = new Random(seed);
        return Enumerable.Range(0, count).Select(_ => random.Next(maxExclusive)).ToArray();
    }

    private static async ValueTask<int> WaitForCancellationAsync(int i, TaskCompletionSource cancelled, CancellationToken ct)
    {
        using var registration = ct.Register(() => cancelled.TrySetResult());
        await Task.Delay(Timeout.Infinite, ct);
        return i;
    }

    /// <summary>Counts a selector's start; the start that reaches <paramref name="expected"/> signals.</summary>
    private static void CountStart(ref int started, int expected, TaskCompletionSource reached)
    {
        if (Interlocked.Increment(ref started) == expected)
        {
            reached.TrySetResult();
        }
    }

    /// <summary>Counts selectors running at once and remembers the most; called from many threads.</summary>
    private sealed class ConcurrencyProbe
    {
        private int _running;
        private int _peak;

        public int Running => Volatile.Read(ref _running);

        public int Peak => Volatile.Read(ref _peak);

        public int Enter()
        {
            var now = Interlocked.Increment(ref _running);
            InterlockedMax.Raise(ref _peak, now);
            return now;
        }

        public void Exit() => Interlocked.Decrement(ref _running);
    }
}
