using System.Diagnostics;
using System.Threading.Tasks.Sources;

namespace Concurrency.Messaging.Tests.Pipes;

/// <summary>
/// The channel pipe's watchdog: a parked side looks at the channel on its own, less and less often while idle, and keeps
/// the one wait it started with, so an idle consumer leaves no abandoned waiters behind in the channel.
/// </summary>
public sealed class ChannelWatchdogTests
{
    [Fact]
    public async Task WatchAsync_WakeUpNeverComes_LooksOnItsOwnBackingOffAndKeepsOneWait()
    {
        var wait = new CountingWait();
        var looks = new List<TimeSpan>();
        var clock = Stopwatch.StartNew();
        bool Ready()
        {
            looks.Add(clock.Elapsed);
            return looks.Count == 4;
        }

        var answer = await ChannelPipe<int>.WatchAsync(wait.Wait, Ready, TestContext.Current.CancellationToken).DefaultTimeout();

        Assert.True(answer);
        Assert.Equal(4, looks.Count);

        // Lower bounds only (a slow machine looks later, never sooner): 100 ms, then 200, then 400, then 800 between looks.
        var slack = TimeSpan.FromMilliseconds(15);
        var interval = ChannelPipe<int>.WatchdogInterval;
        var previous = TimeSpan.Zero;
        foreach (var look in looks)
        {
            Assert.True(look - previous >= interval - slack, $"looked after {(look - previous).TotalMilliseconds:0} ms, expected {interval.TotalMilliseconds:0} ms");
            previous = look;
            interval *= 2;
        }

        // Every look reused the first wait: the channel was asked once, and one continuation was registered on it.
        Assert.Equal(1, wait.Registrations);
    }

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public async Task WatchAsync_WaitAnswers_ReturnsItsAnswerWithoutLooking(bool channelAnswer)
    {
        var wait = new CountingWait();
        var looked = 0;
        var watching = ChannelPipe<int>.WatchAsync(wait.Wait, () => Interlocked.Increment(ref looked) < 0, TestContext.Current.CancellationToken);

        wait.Answer(channelAnswer);

        Assert.Equal(channelAnswer, await watching.DefaultTimeout());
        Assert.Equal(0, Volatile.Read(ref looked));
    }

    [Fact]
    public async Task WatchAsync_Cancelled_StopsWatching()
    {
        using var cancel = CancellationTokenSource.CreateLinkedTokenSource(TestContext.Current.CancellationToken);
        var wait = new CountingWait();
        var watching = ChannelPipe<int>.WatchAsync(wait.Wait, () => false, cancel.Token);

        cancel.Cancel();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => watching.DefaultTimeout());
    }

    /// <summary>A channel wait that answers only when told, and counts the continuations registered on it.</summary>
    private sealed class CountingWait : IValueTaskSource<bool>
    {
        private ManualResetValueTaskSourceCore<bool> _core = new() { RunContinuationsAsynchronously = true };
        private int _registrations;

        public ValueTask<bool> Wait => new(this, _core.Version);

        public int Registrations => Volatile.Read(ref _registrations);

        public void Answer(bool answer) => _core.SetResult(answer);

        public bool GetResult(short token) => _core.GetResult(token);

        public ValueTaskSourceStatus GetStatus(short token) => _core.GetStatus(token);

        public void OnCompleted(Action<object?> continuation, object? state, short token, ValueTaskSourceOnCompletedFlags flags)
        {
            Interlocked.Increment(ref _registrations);
            _core.OnCompleted(continuation, state, token, flags);
        }
    }
}
