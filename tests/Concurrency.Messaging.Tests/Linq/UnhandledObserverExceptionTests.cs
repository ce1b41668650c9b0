using System.Diagnostics;
using System.Runtime.InteropServices;
using Xunit;

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
        var probe = Path.Combine(AppContext.BaseDirectory, "Concurrency.Messaging.CrashProbe.dll");
        Assert.True(File.Exists(probe), $"the crash probe was not built next to the tests: {probe}");
        var start = new ProcessStartInfo(DotnetHost())
        {
            ArgumentList = { probe, mode },
            RedirectStandardError = true,
            RedirectStandardOutput = true,
            UseShellExecute = false,
        };
        start.Environment["DOTNET_DbgEnableMiniDump"] = "0"; // a crash is the expected outcome: no dump

        using var process = Process.Start(start)!;
        var stderr = process.StandardError.ReadToEndAsync(TestContext.Current.CancellationToken);
        var stdout = process.StandardOutput.ReadToEndAsync(TestContext.Current.CancellationToken);
        try
        {
            await process.WaitForExitAsync(TestContext.Current.CancellationToken).DefaultTimeout();
        }
        finally
        {
            if (!process.HasExited)
            {
                process.Kill(entireProcessTree: true);
            }
        }

        var errors = await stderr.DefaultTimeout();
        await stdout.DefaultTimeout();
        Assert.True(process.ExitCode != 0, $"the probe exited normally; its error output: {errors}");
        Assert.Contains("Unhandled exception. System.InvalidOperationException: probe", errors, StringComparison.Ordinal);
    }

    /// <summary>The <c>dotnet</c> host running these tests: the one the SDK names, else the one above this runtime's folder.</summary>
    private static string DotnetHost()
    {
        var named = Environment.GetEnvironmentVariable("DOTNET_HOST_PATH");
        if (!string.IsNullOrEmpty(named) && File.Exists(named))
        {
            return named;
        }

        // The runtime lives in <root>/shared/Microsoft.NETCore.App/<version>/, next to <root>/dotnet.
        var root = Path.GetFullPath(Path.Combine(RuntimeEnvironment.GetRuntimeDirectory(), "..", "..", ".."));
        return Path.Combine(root, OperatingSystem.IsWindows() ? "dotnet.exe" : "dotnet");
    }
}
