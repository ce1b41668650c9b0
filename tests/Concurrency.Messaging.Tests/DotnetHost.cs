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
}
