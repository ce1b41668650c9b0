using System.Diagnostics;

namespace Concurrency.Benchmarks.Runs;

/// <summary>
/// Starts this benchmark program again, as a child process with <paramref name="arguments"/>: this process when it is the
/// program, its app host beside the assembly (when another process, such as a test host, loaded it), or the dotnet host
/// with the assembly. Standard output is redirected; the caller reads it.
/// </summary>
public static class BenchmarkProcess
{
    public static ProcessStartInfo StartInfo(IEnumerable<string> arguments)
    {
        ArgumentNullException.ThrowIfNull(arguments);
        var assembly = typeof(BenchmarkProcess).Assembly.Location;
        var self = Environment.ProcessPath;
        var appHost = Path.ChangeExtension(assembly, OperatingSystem.IsWindows() ? ".exe" : null);
        var program = self is not null && string.Equals(Path.GetFileName(self), Path.GetFileName(appHost), StringComparison.OrdinalIgnoreCase) ? self
            : File.Exists(appHost) ? appHost
            : null;
        var start = new ProcessStartInfo(program ?? (self is not null && Path.GetFileName(self) is "dotnet" or "dotnet.exe" ? self : "dotnet"))
        {
            RedirectStandardOutput = true,
            UseShellExecute = false,
        };
        if (program is null)
        {
            start.ArgumentList.Add(assembly);
        }

        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        return start;
    }
}
