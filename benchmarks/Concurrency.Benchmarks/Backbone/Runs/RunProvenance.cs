using System.Diagnostics;
using System.Runtime.InteropServices;
using System.Text.Json;
using System.Text.Json.Serialization;

namespace Concurrency.Benchmarks.Backbone.Runs;

/// <summary>
/// Where and from what a run's results came: the commit of the working tree the benchmarks were built from (and whether it
/// had uncommitted changes), the runtime, OS, CPU model, logical core count, when, and the arguments as given, quoted for a
/// POSIX shell so the report can print a command that reproduces the run. Written beside each
/// summary's results as "…-provenance.json"; the report lists it per source file and refuses to merge different commits.
/// </summary>
public sealed record RunProvenance(
    string Commit,
    bool Dirty,
    string Runtime,
    string Os,
    string Cpu,
    int LogicalCores,
    DateTime StartedUtc,
    DateTime FinishedUtc,
    string Arguments)
{
    public const string Unknown = "unknown";

    private static readonly JsonSerializerOptions Indented = new() { WriteIndented = true };

    /// <summary>Gets the commit as the report shows it.</summary>
    [JsonIgnore]
    public string CommitLabel => Dirty ? $"{Commit} (uncommitted changes)" : Commit;

    /// <summary>Reads what describes this process and the tree it was built from; git is asked with a bounded wait.</summary>
    public static RunProvenance Capture(IEnumerable<string> arguments)
    {
        var commit = Git("rev-parse", "HEAD") is { Length: 40 } hash ? hash : Unknown;
        // What our own commands write into results/ is output, not a change to what was measured.
        var dirty = commit != Unknown && Git("status", "--porcelain", "--", ":(top,exclude)results") is { Length: > 0 };
        var now = DateTime.UtcNow;
        return new RunProvenance(
            commit,
            dirty,
            RuntimeInformation.FrameworkDescription,
            RuntimeInformation.OSDescription,
            CpuModel(),
            Environment.ProcessorCount,
            now,
            now,
            string.Join(' ', arguments.Select(Quote)));
    }

    public static RunProvenance? Read(string path)
        => File.Exists(path) ? JsonSerializer.Deserialize<RunProvenance>(File.ReadAllText(path)) : null;

    public void Write(string path) => File.WriteAllText(path, JsonSerializer.Serialize(this, Indented));

    /// <summary>Git, run in the directory the program was built into (inside the repository), or null if it fails.</summary>
    private static string? Git(params string[] arguments)
    {
        try
        {
            var start = new ProcessStartInfo("git") { WorkingDirectory = AppContext.BaseDirectory, RedirectStandardOutput = true, RedirectStandardError = true };
            foreach (var argument in arguments)
            {
                start.ArgumentList.Add(argument);
            }

            using var git = Process.Start(start);
            if (git is null)
            {
                return null;
            }

            var output = git.StandardOutput.ReadToEndAsync();
            if (!git.WaitForExit(TimeSpan.FromSeconds(10)))
            {
                git.Kill();
                return null;
            }

            return git.ExitCode == 0 && output.Wait(TimeSpan.FromSeconds(10)) ? output.Result.Trim() : null;
        }
        catch (System.ComponentModel.Win32Exception)
        {
            return null; // no git on this machine
        }
    }

    /// <summary>An argument as a POSIX shell reads it back: bare when it is plain, else in single quotes.</summary>
    private static string Quote(string argument)
        => argument.Length > 0 && argument.All(c => char.IsAsciiLetterOrDigit(c) || c is '-' or '_' or '.' or ',' or '/' or '=' or ':')
            ? argument
            : $"'{argument.Replace("'", "'\\''", StringComparison.Ordinal)}'";

    private static string CpuModel()
    {
        const string cpuInfo = "/proc/cpuinfo";
        if (File.Exists(cpuInfo))
        {
            var model = File.ReadLines(cpuInfo).FirstOrDefault(l => l.StartsWith("model name", StringComparison.Ordinal));
            if (model?.Split(':', 2) is [_, var name])
            {
                return name.Trim();
            }
        }

        return Environment.GetEnvironmentVariable("PROCESSOR_IDENTIFIER") ?? Unknown;
    }
}
