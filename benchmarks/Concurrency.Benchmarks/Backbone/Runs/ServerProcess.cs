using System.Diagnostics;

namespace Concurrency.Benchmarks.Backbone.Runs;

/// <summary>
/// This program started again as a child that serves rather than measures (<c>serve</c>, <c>replica</c>,
/// <c>kv-replica</c>): it prints what its parent needs to reach it, then <see cref="Ready"/>, and serves until its
/// standard input closes (it then prints what it did and exits) or it is killed. The children that measure speak
/// <see cref="BenchmarkProcess"/>'s protocol instead.
/// </summary>
internal sealed class ServerProcess : IDisposable
{
    /// <summary>The line a serving child prints once it serves.</summary>
    public const string Ready = "ready";

    private static readonly TimeSpan StartLimit = TimeSpan.FromSeconds(60);
    private static readonly TimeSpan StopLimit = TimeSpan.FromSeconds(30);
    private static readonly TimeSpan ReadLimit = TimeSpan.FromSeconds(5); // for what is left to read once the child has exited

    private readonly Process _process;

    private ServerProcess(Process process, IReadOnlyList<string> said)
    {
        _process = process;
        Said = said;
    }

    /// <summary>Gets the lines the child printed before <see cref="Ready"/>: where it listens.</summary>
    public IReadOnlyList<string> Said { get; }

    /// <summary>Gets the child's process id.</summary>
    public int Id => _process.Id;

    /// <summary>
    /// Gets the CPU time the child has used so far, all its threads (user and kernel): read before and after a run, the
    /// server's cost of that run. Linux counts it in clock ticks (10 ms), so a run should take many of them.
    /// </summary>
    public TimeSpan CpuTime
    {
        get
        {
            _process.Refresh();
            return _process.TotalProcessorTime;
        }
    }

    /// <summary>Runs this program again with <paramref name="arguments"/> and returns once the child says <see cref="Ready"/>.</summary>
    /// <param name="what">Names the child in errors ("replica 2").</param>
    /// <exception cref="InvalidOperationException">It could not start, exited, or did not say <see cref="Ready"/> within a
    /// minute (it is then killed); the message carries what it said and its error output.</exception>
    public static ServerProcess Start(IEnumerable<string> arguments, string what)
    {
        var start = BenchmarkProcess.StartInfo(arguments);
        start.RedirectStandardInput = true;
        start.RedirectStandardError = true;
        var process = Process.Start(start) ?? throw new InvalidOperationException($"Could not start {what}.");
        var errors = process.StandardError.ReadToEndAsync();

        // Written by the reader until it returns; read here only after it returned (Wait orders the two).
        var said = new List<string>();
        var reading = Task.Run(() =>
        {
            while (process.StandardOutput.ReadLine() is { } line)
            {
                if (line == Ready)
                {
                    return true;
                }

                said.Add(line);
            }

            return false;
        });
        if (reading.Wait(StartLimit) && reading.Result)
        {
            return new ServerProcess(process, said);
        }

        if (!process.HasExited)
        {
            process.Kill(entireProcessTree: true);
        }

        process.WaitForExit();
        var saidText = reading.Wait(ReadLimit) ? string.Join(" / ", said) : string.Empty; // its output closed with it
        var message = errors.Wait(ReadLimit) ? errors.Result.Trim() : string.Empty;
        process.Dispose();
        throw new InvalidOperationException($"{what} did not start: {saidText} {message}".Trim());
    }

    /// <summary>Kills the child at once, as a crash would: its streams break mid-flight, nothing of it runs after this returns.</summary>
    public void Kill()
    {
        _process.Kill(entireProcessTree: true);
        _process.WaitForExit();
    }

    /// <summary>
    /// Stops the child the polite way (its standard input closes), killing it if it has not exited within 30 s, and returns
    /// what it printed after <see cref="Ready"/> (what it did), or <see langword="null"/> where it had already exited.
    /// </summary>
    public string? Stop()
    {
        if (_process.HasExited)
        {
            return null;
        }

        _process.StandardInput.Close();
        var rest = _process.StandardOutput.ReadToEndAsync();
        if (!_process.WaitForExit(StopLimit))
        {
            Kill();
        }

        return rest.Wait(ReadLimit) ? rest.Result.Trim() : null;
    }

    /// <summary>Stops the child (<see cref="Stop"/>) unless it has exited, and lets its process go.</summary>
    public void Dispose()
    {
        Stop();
        _process.Dispose();
    }
}
