using System.Diagnostics;
using System.Globalization;
using System.Text.Json;

namespace Concurrency.Benchmarks.Backbone.Runs;

/// <summary>
/// The one protocol between this program and the child processes it starts to measure in (the lab's experiments, the
/// loop's launches, the footprint's contenders; <see cref="Experiment"/> starts them). The parent runs the program again
/// with the command's own options (<see cref="ChildArguments"/>) and the hidden <c>--result FILE</c>; that option is what makes a process a child. The child prints progress as lines
/// "@progress FRACTION STEP" (FRACTION from 0 to 1, invariant culture), writes its result as JSON to FILE, and exits 0;
/// on failure it prints one line to standard error and exits non-zero. The parent passes the progress on, reads FILE
/// and deletes it. Other lines on the child's standard output are not part of the protocol and are dropped.
/// (The children that serve rather than measure, <c>serve</c> and the replicas, speak <see cref="ServerProcess"/>'s.)
/// </summary>
public static class BenchmarkProcess
{
    /// <summary>The hidden option that names the child's result file.</summary>
    public const string ResultOption = "--result";

    private const string ProgressPrefix = "@progress ";

    /// <summary>In the child: one progress line for the parent.</summary>
    public static void ReportProgress(TextWriter output, double fraction, string step)
    {
        ArgumentNullException.ThrowIfNull(output);
        output.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{ProgressPrefix}{Math.Clamp(fraction, 0, 1):0.000} {step}"));
        output.Flush();
    }

    /// <summary>In the child: the result for the parent, as JSON in the file it named.</summary>
    public static void WriteResult<TResult>(string resultFile, TResult result)
        => File.WriteAllText(resultFile, JsonSerializer.Serialize(result));

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
    /// Runs this program again as a child with <paramref name="arguments"/> and <c>--result FILE</c>, hands each progress
    /// line the child prints to <paramref name="progress"/> (fraction done, step), and returns what the child wrote to FILE.
    /// </summary>
    /// <param name="environment">Variables set for the child only, if any.</param>
    /// <param name="what">Names the child in errors ("the lab's logs at 2 cores").</param>
    /// <exception cref="InvalidOperationException">The child could not start, failed, ran past <paramref name="limit"/> (it is then
    /// stopped) or wrote no result; the message names it and carries its error output.</exception>
    public static TResult RunForResult<TResult>(
        ChildArguments arguments,
        IReadOnlyDictionary<string, string>? environment,
        Action<double, string> progress,
        TimeSpan limit,
        string what)
    {
        ArgumentNullException.ThrowIfNull(arguments);
        ArgumentNullException.ThrowIfNull(progress);
        var resultFile = Path.GetTempFileName();
        try
        {
            var start = StartInfo([.. arguments.ToList(), ResultOption, resultFile]);
            start.RedirectStandardError = true;
            foreach (var (name, value) in environment ?? new Dictionary<string, string>())
            {
                start.Environment[name] = value;
            }

            using var child = Process.Start(start) ?? throw new InvalidOperationException($"Could not start {what}.");
            var errors = child.StandardError.ReadToEndAsync();
            while (child.StandardOutput.ReadLine() is { } line)
            {
                if (TryParseProgress(line, out var fraction, out var step))
                {
                    progress(fraction, step);
                }
            }

            if (!child.WaitForExit(limit))
            {
                child.Kill(entireProcessTree: true);
                throw new ChildProcessException($"{what} ran past {limit.TotalMinutes} minutes and was stopped.");
            }

            if (child.ExitCode != 0)
            {
                throw new ChildProcessException($"{what} failed (exit {child.ExitCode}): {errors.Result.Trim()}");
            }

            return JsonSerializer.Deserialize<TResult>(File.ReadAllText(resultFile))
                ?? throw new InvalidOperationException($"{what} wrote no result.");
        }
        finally
        {
            File.Delete(resultFile);
        }
    }

    private static bool TryParseProgress(string line, out double fraction, out string step)
    {
        fraction = 0;
        step = string.Empty;
        if (!line.StartsWith(ProgressPrefix, StringComparison.Ordinal))
        {
            return false;
        }

        var rest = line[ProgressPrefix.Length..];
        var space = rest.IndexOf(' ', StringComparison.Ordinal);
        if (space <= 0 || !double.TryParse(rest[..space], NumberStyles.Float, CultureInfo.InvariantCulture, out fraction))
        {
            return false;
        }

        step = rest[(space + 1)..];
        return true;
    }
}

/// <summary>A child process the program started to measure in failed, ran past its limit, or wrote no result.</summary>
public sealed class ChildProcessException(string message) : Exception(message);
