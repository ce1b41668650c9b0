using System.Diagnostics;

namespace Concurrency.Messaging.Tests;

/// <summary>
/// Runs the crash probe (tests/Concurrency.Messaging.CrashProbe, built next to these tests) as a child process, for what
/// no in-process test can survive: an unhandled exception, a process killed mid-work. Bounded by the default timeout.
/// </summary>
internal static class CrashProbeProcess
{
    public static async Task<(int ExitCode, string Output, string Errors)> RunAsync(params string[] arguments)
    {
        var start = DotnetHost.Probe("Concurrency.Messaging.CrashProbe.dll", arguments);
        start.RedirectStandardError = true;
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
        var output = await stdout.DefaultTimeout();
        return (process.ExitCode, output, errors);
    }
}
