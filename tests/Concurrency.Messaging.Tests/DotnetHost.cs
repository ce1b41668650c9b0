using System.Diagnostics;
using System.Runtime.InteropServices;

namespace Concurrency.Messaging.Tests;

/// <summary>The <c>dotnet</c> host running these tests, to run a probe (a child process built next to them) with.</summary>
internal static class DotnetHost
{
    /// <summary>Gets the host's path: the one the SDK names, else the one above this runtime's folder.</summary>
    public static string Path
    {
        get
        {
            var named = Environment.GetEnvironmentVariable("DOTNET_HOST_PATH");
            if (!string.IsNullOrEmpty(named) && File.Exists(named))
            {
                return named;
            }

            // The runtime lives in <root>/shared/Microsoft.NETCore.App/<version>/, next to <root>/dotnet.
            var root = System.IO.Path.GetFullPath(System.IO.Path.Combine(RuntimeEnvironment.GetRuntimeDirectory(), "..", "..", ".."));
            return System.IO.Path.Combine(root, OperatingSystem.IsWindows() ? "dotnet.exe" : "dotnet");
        }
    }

    /// <summary>
    /// How to start the probe <paramref name="fileName"/> (a program built next to the tests) with this host and
    /// <paramref name="arguments"/>, its output redirected; the caller redirects what else it reads or writes. Fails the
    /// test if the probe was not built.
    /// </summary>
    public static ProcessStartInfo Probe(string fileName, params string[] arguments)
    {
        var probe = System.IO.Path.Combine(AppContext.BaseDirectory, fileName);
        Assert.True(File.Exists(probe), $"the probe was not built next to the tests: {probe}");
        var start = new ProcessStartInfo(Path) { RedirectStandardOutput = true, UseShellExecute = false };
        start.ArgumentList.Add(probe);
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        return start;
    }
}
