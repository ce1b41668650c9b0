namespace Concurrency.Messaging.Tests.Admission;

/// <summary>
/// One thread at a time: the limit, the rejection's message, the throttle on a fake clock, cancellation, leases and
/// options. A throttled entry's delay is a timer on the fake clock, so it cannot complete before <see cref="FakeTimeProvider.Advance"/>.
/// </summary>
public sealed class AdmissionGateTests
{
    private static readonly TimeSpan Delay = TimeSpan.FromSeconds(1);

    [Fact]
    public void TryEnter_AtTheLimit_ReturnsFalseAndCountsARejection()
    {
        var gate = AdmissionGate.Create(new AdmissionOptions { Limit = 2 });

        Assert.True(gate.TryEnter(out var first));
        Assert.True(gate.TryEnter(out var second));
        Assert.False(gate.TryEnter(out var third));

        Assert.NotNull(first);
        Assert.NotNull(second);
        Assert.Null(third);
        Assert.Equal(new AdmissionMetrics(2, 2, 2, 1, 0), gate.Metrics);
    }

    [Fact]
    public async Task EnterAsync_AtTheLimit_ThrowsWithTheLimitAndTheOutstandingCount()
    {
        var gate = AdmissionGate.Create(new AdmissionOptions { Limit = 2 });
        using var first = await gate.EnterAsync(TestContext.Current.CancellationToken).AsTask().DefaultTimeout();
        using var second = await gate.EnterAsync(TestContext.Current.CancellationToken).AsTask().DefaultTimeout();

        var rejected = await Assert.ThrowsAsync<AdmissionRejectedException>(() => gate.EnterAsync(TestContext.Current.CancellationToken).AsTask()).DefaultTimeout();

        Assert.Equal(2, rejected.Limit);
        Assert.Equal(2, rejected.Outstanding);
        Assert.Contains("2 outstanding at the limit of 2", rejected.Message, StringComparison.Ordinal);
        Assert.Equal(new AdmissionMetrics(2, 2, 2, 1, 0), gate.Metrics);
    }

    [Fact]
    public void EnterAsync_RejectPolicyAboveTheThreshold_AdmitsAtOnce()
    {
        var time = new FakeTimeProvider();
        var gate = AdmissionGate.Create(new AdmissionOptions { Limit = 3, ThrottleThreshold = 1, ThrottleDelay = Delay, TimeProvider = time });
        Assert.True(gate.TryEnter(out _));

        var entry = gate.EnterAsync(TestContext.Current.CancellationToken);

        Assert.True(entry.IsCompletedSuccessfully);
        Assert.Equal(0, gate.Metrics.Throttled);
    }

    [Fact]
    public async Task EnterAsync_ThrottleBelowTheThreshold_AdmitsAtOnce()
    {
        var (gate, _) = Throttled(limit: 4, threshold: 2);

        var entry = gate.EnterAsync(TestContext.Current.CancellationToken);

        Assert.True(entry.IsCompletedSuccessfully);
        using var lease = await entry.AsTask().DefaultTimeout();
        Assert.Equal(0, gate.Metrics.Throttled);
    }

    [Fact]
    public async Task EnterAsync_ThrottleAtTheThreshold_CompletesOnlyWhenTheFakeClockHasAdvancedByTheDelay()
    {
        var (gate, time) = Throttled(limit: 4, threshold: 2);
        Hold(gate, 2);

        var entry = gate.EnterAsync(TestContext.Current.CancellationToken).AsTask();
        time.Advance(Delay - TimeSpan.FromTicks(1));
        Assert.False(entry.IsCompleted);
        Assert.Equal(2, gate.Metrics.Outstanding);

        time.Advance(TimeSpan.FromTicks(1));
        using var lease = await entry.DefaultTimeout();

        Assert.Equal(new AdmissionMetrics(3, 3, 3, 0, 1), gate.Metrics);
    }

    [Fact]
    public async Task EnterAsync_ThrottledWhileOthersFillTheLimit_IsRejectedAfterTheDelay()
    {
        var (gate, time) = Throttled(limit: 3, threshold: 2);
        Hold(gate, 2);
        var entry = gate.EnterAsync(TestContext.Current.CancellationToken).AsTask();
        Hold(gate, 1); // TryEnter never throttles: the limit is now full

        time.Advance(Delay);

        var rejected = await Assert.ThrowsAsync<AdmissionRejectedException>(() => entry).DefaultTimeout();
        Assert.Equal(3, rejected.Outstanding);
        Assert.Equal(new AdmissionMetrics(3, 3, 3, 1, 1), gate.Metrics);
    }

    [Fact]
    public async Task EnterAsync_ThrottledThenCanceled_ThrowsAndLeavesOutstandingUnchanged()
    {
        var (gate, time) = Throttled(limit: 4, threshold: 2);
        Hold(gate, 2);
        using var cancel = CancellationTokenSource.CreateLinkedTokenSource(TestContext.Current.CancellationToken);
        var entry = gate.EnterAsync(cancel.Token).AsTask();

        await cancel.CancelAsync();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => entry).DefaultTimeout();
        time.Advance(Delay);
        Assert.Equal(new AdmissionMetrics(2, 2, 2, 0, 1), gate.Metrics);
    }

    [Fact]
    public async Task EnterAsync_TokenAlreadyCanceled_ThrowsWithoutAdmitting()
    {
        var gate = AdmissionGate.Create();
        using var cancel = new CancellationTokenSource();
        await cancel.CancelAsync();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => gate.EnterAsync(cancel.Token).AsTask()).DefaultTimeout();

        Assert.Equal(new AdmissionMetrics(0, 0, 0, 0, 0), gate.Metrics);
    }

    [Fact]
    public void Dispose_Twice_ReleasesOnce()
    {
        var gate = AdmissionGate.Create(new AdmissionOptions { Limit = 2 });
        Assert.True(gate.TryEnter(out var held));
        Assert.True(gate.TryEnter(out var lease));

        lease.Dispose();
        lease.Dispose();

        Assert.Equal(1, gate.Metrics.Outstanding);
        held.Dispose();
        Assert.Equal(0, gate.Metrics.Outstanding);
    }

    [Fact]
    public void Create_RejectPolicyWithAThresholdPastTheLimit_IgnoresTheThreshold()
    {
        var gate = AdmissionGate.Create(new AdmissionOptions { Limit = 10, ThrottleThreshold = 500, ThrottleDelay = TimeSpan.Zero });

        Assert.Equal(10, gate.Limit);
    }

    public static TheoryData<string, AdmissionOptions> BadOptions => new()
    {
        { "options.Limit", new AdmissionOptions { Limit = 0 } },
        { "options.Limit", new AdmissionOptions { Limit = -1 } },
        { "options", new AdmissionOptions { Policy = (AdmissionPolicy)7 } },
        { "options.ThrottleThreshold", new AdmissionOptions { Policy = AdmissionPolicy.Throttle, ThrottleThreshold = 0 } },
        { "options.ThrottleThreshold", new AdmissionOptions { Policy = AdmissionPolicy.Throttle, Limit = 10, ThrottleThreshold = 10 } },
        { "options.ThrottleDelay", new AdmissionOptions { Policy = AdmissionPolicy.Throttle, ThrottleDelay = TimeSpan.Zero } },
        { "options.ThrottleDelay", new AdmissionOptions { Policy = AdmissionPolicy.Throttle, ThrottleDelay = TimeSpan.FromSeconds(-1) } },
        { "options.ThrottleDelay", new AdmissionOptions { Policy = AdmissionPolicy.Throttle, ThrottleDelay = TimeSpan.FromDays(60) } },
    };

    [Theory]
    [MemberData(nameof(BadOptions))]
    public void Create_BadOptions_ThrowsArgumentOutOfRange(string parameter, AdmissionOptions options)
    {
        var thrown = Assert.Throws<ArgumentOutOfRangeException>(() => AdmissionGate.Create(options));

        Assert.Equal(parameter, thrown.ParamName);
    }

    [Fact]
    public void Create_NullTimeProvider_ThrowsArgumentNull()
    {
        Assert.Throws<ArgumentNullException>(() => AdmissionGate.Create(new AdmissionOptions { TimeProvider = null! }));
    }

    private static (IAdmissionGate Gate, FakeTimeProvider Time) Throttled(int limit, int threshold)
    {
        var time = new FakeTimeProvider();
        var gate = AdmissionGate.Create(new AdmissionOptions
        {
            Limit = limit,
            Policy = AdmissionPolicy.Throttle,
            ThrottleThreshold = threshold,
            ThrottleDelay = Delay,
            TimeProvider = time,
        });
        return (gate, time);
    }

    /// <summary>Admits <paramref name="count"/> items and keeps them outstanding for the rest of the test.</summary>
    private static void Hold(IAdmissionGate gate, int count)
    {
        for (var i = 0; i < count; i++)
        {
            Assert.True(gate.TryEnter(out _));
        }
    }
}
