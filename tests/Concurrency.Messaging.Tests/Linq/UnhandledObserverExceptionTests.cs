namespace Concurrency.Messaging.Tests.Linq;

/// <summary>
/// An observer subscribed with only an onNext that throws: the operator hands the exception to the observer's OnError, and
/// Rx's default onError rethrows it. Rx lets that escape the scheduler's thread, so the process dies of an unhandled
/// exception; our operators must do the same, not bury it in a task nobody observes. Only a child process can show it:
/// the crash probe, built next to these tests.
/// </summary>
public sealed class UnhandledObserverExceptionTests
{
    [Fact]
    public async Task ObserveOnRing_OnNextOnlyObserverThrows_ProcessDiesOfTheUnhandledException()
        => await AssertProbeDiesOfTheProbeExceptionAsync("ring");

    [Fact]
    public async Task RxObserveOnThreadPool_OnNextOnlyObserverThrows_ProcessDiesOfTheUnhandledException()
        => await AssertProbeDiesOfTheProbeExceptionAsync("rx"); // the control: what Rx itself does

    private static async Task AssertProbeDiesOfTheProbeExceptionAsync(string mode)
    {
        var (exitCode, _, errors) = await CrashProbeProcess.RunAsync(mode);
        Assert.True(exitCode != 0, $"the probe exited normally; its error output: {errors}");
        Assert.Contains("Unhandled exception. System.InvalidOperationException: probe", errors, StringComparison.Ordinal);
    }
}
