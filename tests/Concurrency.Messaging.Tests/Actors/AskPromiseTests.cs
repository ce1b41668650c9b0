using System.Runtime.CompilerServices;
using Concurrency.Messaging.Tests.Workers;

namespace Concurrency.Messaging.Tests.Actors;

/// <summary>The promise an Ask waits on: whoever completes it first releases its timer and its token registration.</summary>
public sealed class AskPromiseTests
{
    [Fact]
    public void Arm_TimerFiresBeforeArmingEnds_TimerDisposedAndTheTokenLetsThePromiseGo()
    {
        // A timer may fire on another thread before CreateTimer has even returned (a short timeout, a busy machine); this
        // clock makes that certain by firing inside CreateTimer.
        using var cancel = new CancellationTokenSource();
        var time = new FiringTimeProvider();

        var promise = ArmAndLetItTimeOut(time, cancel.Token);
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();

        Assert.True(time.Timer!.IsDisposed, "the timer that fired first was never disposed");
        Assert.False(promise.IsAlive, "the token still holds the promise: its registration was never removed");
        GC.KeepAlive(cancel);
    }

    [MethodImpl(MethodImplOptions.NoInlining)] // the promise must not outlive this frame in a local of the test
    private static WeakReference ArmAndLetItTimeOut(TimeProvider time, CancellationToken token)
    {
        var promise = new AskPromise<int>();
        promise.Arm(time, TimeSpan.FromSeconds(1), token);
        var task = promise.Task;
        Assert.True(task.IsCompleted);
        Assert.Throws<TimeoutException>(() => task.GetAwaiter().GetResult());
        return new WeakReference(promise);
    }

    /// <summary>A clock whose one timer fires at once, inside <see cref="CreateTimer"/>, and keeps no reference to its state.</summary>
    private sealed class FiringTimeProvider : TimeProvider
    {
        private readonly FakeTimeProvider _clock = new();

        public RecordedTimer? Timer { get; private set; }

        public override ITimer CreateTimer(TimerCallback callback, object? state, TimeSpan dueTime, TimeSpan period)
        {
            callback(state);
            Timer = new RecordedTimer(_clock.CreateTimer(static _ => { }, null, Timeout.InfiniteTimeSpan, Timeout.InfiniteTimeSpan));
            return Timer;
        }
    }
}
