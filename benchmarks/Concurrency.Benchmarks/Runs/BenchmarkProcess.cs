using System.Diagnostics;
using System.Text.Json;

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

    /// <summary>
    /// Runs this program again as a child with <paramref name="arguments"/> and <c>--result FILE</c>, hands each line the
    /// child prints to <paramref name="onLine"/>, and returns what the child wrote to FILE, as JSON.
    /// </summary>
    /// <param name="environment">Variables set for the child only, if any.</param>
    /// <param name="what">Names the child in errors ("the lab's logs at 2 cores").</param>
    /// <exception cref="InvalidOperationException">The child could not start, failed, ran past <paramref name="limit"/> (it is then
    /// stopped) or wrote no result; the message names it and carries its error output.</exception>
    public static TResult RunForResult<TResult>(
        IEnumerable<string> arguments,
        IReadOnlyDictionary<string, string>? environment,
        Action<string> onLine,
        TimeSpan limit,
        string what)
    {
        ArgumentNullException.ThrowIfNull(onLine);
        var resultFile = Path.GetTempFileName();
        try
        {
            var start = StartInfo([.. arguments, "--result", resultFile]);
            start.RedirectStandardError = true;
            foreach (var (name, value) in environment ?? new Dictionary<string, string>())
            {
                start.Environment[name] = value;
            }

            using var child = Process.Start(start) ?? throw new InvalidOperationException($"Could not start {what}.");
            var errors = child.StandardError.ReadToEndAsync();
            while (child.StandardOutput.ReadLine() is { } line)
            {
                onLine(line);
            }

            if (!child.WaitForExit(limit))
            {
                child.Kill(entireProcessTree: true);
                throw new InvalidOperationException($"{what} ran past {limit.TotalMinutes} minutes and was stopped.");
            }

            if (child.ExitCode != 0)
            {
                throw new InvalidOperationException($"{what} failed (exit {child.ExitCode}): {errors.Result.Trim()}");
            }

            return JsonSerializer.Deserialize<TResult>(File.ReadAllText(resultFile))
                ?? throw new InvalidOperationException($"{what} wrote no result.");
        }
        finally
        {
            File.Delete(resultFile);
        }
    }
}
