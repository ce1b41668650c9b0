namespace Concurrency.Messaging.Tests;

/// <summary>
/// Runs a call that should block (a post or tell into something full) on a thread of its own, and returns only once that
/// thread is seen parked in a wait, so a test's next step cannot run before the call has started waiting. Bounded by the
/// default timeout; fails if the call finished instead of blocking.
/// </summary>
internal static class BlockedThread
{
    public static async Task<Task> StartAsync(Action blockingCall)
    {
        var started = new TaskCompletionSource<Thread>(TaskCreationOptions.RunContinuationsAsynchronously);
        var call = Task.Factory.StartNew(
            () =>
            {
                started.SetResult(Thread.CurrentThread);
                blockingCall();
            },
            CancellationToken.None,
            TaskCreationOptions.LongRunning,
            TaskScheduler.Default);
        var thread = await started.Task.DefaultTimeout();

        Assert.True(
            SpinWait.SpinUntil(() => call.IsCompleted || (thread.ThreadState & ThreadState.WaitSleepJoin) != 0, TestTimeouts.Default),
            "the call's thread neither blocked nor finished");
        Assert.False(call.IsCompleted, $"the call finished instead of blocking: {call.Status} {call.Exception?.InnerException}");
        return call;
    }
}
